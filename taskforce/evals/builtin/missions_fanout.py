"""Missions that fan out over several items (each item is a step of its own)."""

from __future__ import annotations

from taskforce.evals.builtin.checks import all_of, answer, event, file, mission, note, sent, world
from taskforce.evals.mission import Mission
from taskforce.testing import call, reply

FAN_OUT: list[Mission] = [
    mission(
        "four-cities-report",
        "For each of these 4 cities — Oslo, Paris, Rome and Berlin — get the weather, then "
        "save one note titled 'weather report' that lists every city with its temperature.",
        world("weather", "notes"),
        note("weather report", "oslo", "paris", "rome", "berlin", numbers=[4, 14, 22, 9]),
        [
            call("get_weather", city="Oslo"),
            call("get_weather", city="Paris"),
            call("get_weather", city="Rome"),
            call("get_weather", city="Berlin"),
            call(
                "save_note",
                title="weather report",
                text="Oslo 4°C, Paris 14°C, Rome 22°C, Berlin 9°C",
            ),
            reply("Saved the weather report."),
        ],
        "fan-out",
    ),
    mission(
        "prices-to-euros",
        "Convert each of these prices to euros: 100 USD, 80 GBP, 5000 JPY and 60 CHF. Write "
        "the four results to prices.txt, one per line.",
        world("money", "files"),
        file("prices.txt", numbers=[90, 30, 61.36]),
        [
            call("convert_currency", amount=100, from_currency="USD", to_currency="EUR"),
            call("convert_currency", amount=80, from_currency="GBP", to_currency="EUR"),
            call("convert_currency", amount=5000, from_currency="JPY", to_currency="EUR"),
            call("convert_currency", amount=60, from_currency="CHF", to_currency="EUR"),
            call("write_file", path="prices.txt", text="90 EUR\n90 EUR\n30 EUR\n61.36 EUR"),
            reply("Written to prices.txt."),
        ],
        "fan-out",
    ),
    mission(
        "party-invites",
        "Send the same email to Alice, Bob and Carol (look up their addresses): subject "
        "'Party', body 'Party at my place on Saturday at 8pm.'",
        world("contacts", "email"),
        all_of(*(sent(f"{n}@example.com", "party", "saturday") for n in ("alice", "bob", "carol"))),
        [
            call("find_contact", name="Alice"),
            call("find_contact", name="Bob"),
            call("find_contact", name="Carol"),
            *(
                call(
                    "send_email",
                    to=f"{n}@example.com",
                    subject="Party",
                    body="Party at my place on Saturday at 8pm.",
                )
                for n in ("alice", "bob", "carol")
            ),
            reply("All three invited."),
        ],
        "fan-out",
    ),
    mission(
        "three-notes-count",
        "Save three notes: 'milk' with the text 'buy 2 litres of milk', 'call' with the text "
        "'call mum on Sunday', and 'gym' with the text 'gym at 7am'. Then list all my notes and "
        "tell me how many there are.",
        world("notes", notes={"shopping": "eggs, flour", "ideas": "a blog about tea"}),
        all_of(note("milk", "milk"), note("call", "mum"), note("gym", "7"), answer(numbers=[5])),
        [
            call("save_note", title="milk", text="buy 2 litres of milk"),
            call("save_note", title="call", text="call mum on Sunday"),
            call("save_note", title="gym", text="gym at 7am"),
            call("list_notes"),
            reply("You have 5 notes."),
        ],
        "fan-out",
    ),
    mission(
        "three-events",
        "Add these to my calendar on 2026-12-12: Standup at 09:00, Lunch with Erin at 12:30, "
        "Review at 16:00.",
        world("calendar"),
        all_of(
            event("standup", "2026-12-12", "09:00"),
            event("lunch", "2026-12-12", "12:30"),
            event("review", "2026-12-12", "16:00"),
        ),
        [
            call("add_event", title="Standup", date="2026-12-12", time="09:00"),
            call("add_event", title="Lunch with Erin", date="2026-12-12", time="12:30"),
            call("add_event", title="Review", date="2026-12-12", time="16:00"),
            reply("All three added."),
        ],
        "fan-out",
    ),
    mission(
        "kg-to-pounds",
        "Convert 10 kg, 25 kg and 70 kg to pounds and tell me the three results.",
        world("units"),
        answer(numbers=[22.05, 55.12, 154.32], tol=0.02),
        [
            call("convert_units", value=10, from_unit="kg", to_unit="lb"),
            call("convert_units", value=25, from_unit="kg", to_unit="lb"),
            call("convert_units", value=70, from_unit="kg", to_unit="lb"),
            reply("22.05 lb, 55.12 lb and 154.32 lb."),
        ],
        "fan-out",
    ),
    mission(
        "temps-fahrenheit-file",
        "Get the temperatures in Madrid and Tokyo, convert both to Fahrenheit and write them to "
        "temps.txt.",
        world("weather", "units", "files"),
        file("temps.txt", numbers=[77, 64.4]),
        [
            call("get_weather", city="Madrid"),
            call("get_weather", city="Tokyo"),
            call("convert_units", value=25, from_unit="c", to_unit="f"),
            call("convert_units", value=18, from_unit="c", to_unit="f"),
            call("write_file", path="temps.txt", text="Madrid: 77°F\nTokyo: 64.4°F"),
            reply("Written to temps.txt."),
        ],
        "fan-out",
    ),
]
