"""Longer errands (4-7 steps) mixing lookups, arithmetic, state and messages.

Written the way people write them: numbered lists, prose, terse notes.
"""

from __future__ import annotations

from taskforce.evals.builtin.checks import (
    all_of,
    answer,
    event,
    file,
    file_without,
    mission,
    note,
    sent,
    world,
)
from taskforce.evals.builtin.missions_simple import SALES
from taskforce.evals.mission import Mission
from taskforce.testing import call, reply

LONG: list[Mission] = [
    mission(
        "weekly-sales-report",
        "1. Read sales.csv and compute the total of the amounts.\n"
        "2. Convert the total from USD to EUR.\n"
        "3. Write the EUR total to report.txt.\n"
        "4. Email Alice the EUR total with the subject 'Weekly sales' (her address is in my "
        "contacts).",
        world("files", "math", "money", "contacts", "email", files={"sales.csv": SALES}),
        all_of(file("report.txt", numbers=[450]), sent("alice@example.com", numbers=[450])),
        [
            call("read_file", path="sales.csv"),
            call("calculator", expression="120 + 75.50 + 304.50"),
            call("convert_currency", amount=500, from_currency="USD", to_currency="EUR"),
            call("write_file", path="report.txt", text="Weekly sales: 450 EUR"),
            call("find_contact", name="Alice"),
            call(
                "send_email",
                to="alice@example.com",
                subject="Weekly sales",
                body="This week's sales: 450 EUR.",
            ),
            reply("Report written and sent: 450 EUR."),
        ],
        "long",
    ),
    mission(
        "dinner-split",
        "We spent 84.60 EUR on dinner, 45 EUR on taxis and 120.40 EUR on tickets. Add it up, "
        "split it equally between 3 people, convert one share to USD, and email the share in "
        "USD to dave@example.com with the subject 'Your share'.",
        world("math", "money", "email"),
        sent("dave@example.com", numbers=[92.59], tol=0.02),
        [
            call("calculator", expression="84.60 + 45 + 120.40"),
            call("calculator", expression="250 / 3"),
            call("convert_currency", amount=83.33, from_currency="EUR", to_currency="USD"),
            call(
                "send_email",
                to="dave@example.com",
                subject="Your share",
                body="Your share is 92.59 USD.",
            ),
            reply("Dave's share: 92.59 USD, sent."),
        ],
        "long",
    ),
    mission(
        "merge-week-notes",
        "Read my notes 'monday' and 'tuesday', and save a new note titled 'week' that "
        "contains the tasks of both.",
        world("notes", notes={"monday": "fix the bike; pay rent", "tuesday": "dentist; buy tea"}),
        note("week", "bike", "rent", "dentist", "tea"),
        [
            call("read_note", title="monday"),
            call("read_note", title="tuesday"),
            call("save_note", title="week", text="fix the bike; pay rent; dentist; buy tea"),
            reply("Saved 'week' with all four tasks."),
        ],
        "long",
    ),
    mission(
        "draft-todo-final",
        "Read draft.txt and write its text into final.txt, replacing every 'TODO' with 'done'.",
        world("files", files={"draft.txt": "intro: TODO\nbudget: 300\nsummary: TODO\n"}),
        all_of(
            file("final.txt", "intro: done", "budget: 300", "summary: done"),
            file_without("final.txt", "TODO"),
        ),
        [
            call("read_file", path="draft.txt"),
            call("write_file", path="final.txt", text="intro: done\nbudget: 300\nsummary: done\n"),
            reply("final.txt written."),
        ],
        "long",
    ),
    mission(
        "tokyo-trip",
        "I'm flying to Tokyo next week. Check the weather there, convert the temperature to "
        "Fahrenheit, save a note titled 'tokyo' with both numbers, and add 'Flight to Tokyo' to "
        "my calendar on 2026-12-14 at 07:45.",
        world("weather", "units", "notes", "calendar"),
        all_of(note("tokyo", numbers=[18, 64.4]), event("tokyo", "2026-12-14", "07:45")),
        [
            call("get_weather", city="Tokyo"),
            call("convert_units", value=18, from_unit="c", to_unit="f"),
            call("save_note", title="tokyo", text="18°C = 64.4°F"),
            call("add_event", title="Flight to Tokyo", date="2026-12-14", time="07:45"),
            reply("Noted 18°C (64.4°F) and added the flight."),
        ],
        "long",
    ),
    mission(
        "erin-home-weather",
        "Find out which city Erin lives in (it's in my contacts), get the weather there, and "
        "email her the temperature with the subject 'Your weather'.",
        world("contacts", "weather", "email"),
        sent("erin@example.com", numbers=[7]),
        [
            call("find_contact", name="Erin"),
            call("get_weather", city="Vienna"),
            call(
                "send_email",
                to="erin@example.com",
                subject="Your weather",
                body="It is 7°C and foggy in Vienna.",
            ),
            reply("Told Erin: 7°C in Vienna."),
        ],
        "long",
    ),
    mission(
        "appointments-to-calendar",
        "Read the note 'appointments' and add each appointment in it to my calendar.",
        world(
            "notes",
            "calendar",
            notes={"appointments": "2026-12-08 10:00 Haircut\n2026-12-09 15:30 Bank"},
        ),
        all_of(event("haircut", "2026-12-08", "10:00"), event("bank", "2026-12-09", "15:30")),
        [
            call("read_note", title="appointments"),
            call("add_event", title="Haircut", date="2026-12-08", time="10:00"),
            call("add_event", title="Bank", date="2026-12-09", time="15:30"),
            reply("Both appointments added."),
        ],
        "long",
    ),
    mission(
        "volumes-file",
        "convert 3 gallons to litres and 15 litres to gallons, then write both results to "
        "volumes.txt",
        world("units", "files"),
        file("volumes.txt", numbers=[11.36, 3.96], tol=0.02),
        [
            call("convert_units", value=3, from_unit="gal", to_unit="l"),
            call("convert_units", value=15, from_unit="l", to_unit="gal"),
            call("write_file", path="volumes.txt", text="3 gal = 11.36 l\n15 l = 3.96 gal"),
            reply("Written."),
        ],
        "long",
    ),
    mission(
        "frank-city-forecast",
        "Look up Frank in my contacts and check the weather in his city. Convert the "
        "temperature to Fahrenheit. Then:\n"
        "- save a note titled 'frank' with the temperature in both units\n"
        "- email Frank the Fahrenheit temperature (subject 'Weather at home')",
        world("contacts", "weather", "units", "notes", "email"),
        all_of(note("frank", numbers=[9, 48.2]), sent("frank@example.com", numbers=[48.2])),
        [
            call("find_contact", name="Frank"),
            call("get_weather", city="Berlin"),
            call("convert_units", value=9, from_unit="c", to_unit="f"),
            call("save_note", title="frank", text="Berlin: 9°C / 48.2°F"),
            call(
                "send_email",
                to="frank@example.com",
                subject="Weather at home",
                body="It is 48.2°F in Berlin.",
            ),
            reply("Done."),
        ],
        "long",
    ),
    mission(
        "budget-file-total",
        "Here is my month: rent 950, food 310.25, transport 89.75, fun 150 (all EUR). Write "
        "these four lines to budget.txt, add them up, append the total as a fifth line "
        "'total: <amount>', and tell me the total in GBP.",
        world("files", "math", "money"),
        all_of(
            file("budget.txt", "rent", "food", "transport", "fun", numbers=[1500]),
            answer(numbers=[1333.33], tol=0.02),
        ),
        [
            call(
                "write_file",
                path="budget.txt",
                text="rent 950\nfood 310.25\ntransport 89.75\nfun 150",
            ),
            call("calculator", expression="950 + 310.25 + 89.75 + 150"),
            call(
                "write_file",
                path="budget.txt",
                text="rent 950\nfood 310.25\ntransport 89.75\nfun 150\ntotal: 1500",
            ),
            call("convert_currency", amount=1500, from_currency="EUR", to_currency="GBP"),
            reply("The total is 1500 EUR, which is 1333.33 GBP."),
        ],
        "long",
    ),
]
