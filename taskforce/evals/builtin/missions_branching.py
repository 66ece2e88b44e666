"""Missions with a condition, and missions that fan out over several items.

A conditional mission checks that the right branch happened and the wrong one did not.
"""

from __future__ import annotations

from taskforce.evals.builtin.checks import (
    all_of,
    answer,
    event,
    file,
    mission,
    no_email,
    no_event,
    no_note,
    note,
    sent,
    world,
)
from taskforce.evals.mission import Mission
from taskforce.testing import call, reply

CONDITIONAL: list[Mission] = [
    mission(
        "reykjavik-coat",
        "Check the weather in Reykjavik. If it is colder than 10°C, email Bob "
        "(bob@example.com) to bring a warm coat; otherwise email him that a light jacket is "
        "enough.",
        world("weather", "email"),
        sent("bob@example.com", "coat"),
        [
            call("get_weather", city="Reykjavik"),
            call(
                "send_email",
                to="bob@example.com",
                subject="Weather",
                body="It is -2°C in Reykjavik: bring a warm coat.",
            ),
            reply("It is -2°C, so I told Bob to bring a warm coat."),
        ],
        "conditional",
    ),
    mission(
        "rome-pack-light",
        "check rome's weather. if it's colder than 10 degrees send alice an email telling her "
        "to pack a coat, if not, send her an email saying she can pack light. her address is "
        "alice@example.com",
        world("weather", "email"),
        sent("alice@example.com", "light"),
        [
            call("get_weather", city="Rome"),
            call(
                "send_email",
                to="alice@example.com",
                subject="Rome",
                body="It is 22°C in Rome: you can pack light.",
            ),
            reply("Rome is 22°C; Alice can pack light."),
        ],
        "conditional",
    ),
    mission(
        "london-rain-gym",
        "Look at the weather in London. If it is raining, add an event 'Indoor gym' on "
        "2026-12-05 at 18:00 to my calendar; if it is not raining, add 'Park run' at the same "
        "time instead.",
        world("weather", "calendar"),
        all_of(event("gym", "2026-12-05", "18:00"), no_event("park")),
        [
            call("get_weather", city="London"),
            call("add_event", title="Indoor gym", date="2026-12-05", time="18:00"),
            reply("It rains in London: 'Indoor gym' added for 18:00."),
        ],
        "conditional",
    ),
    mission(
        "over-budget",
        "Compute 3 * 149.99 + 2 * 35.5. If the total is more than 500, save a note titled "
        "'budget' saying 'over budget'; otherwise save 'within budget'.",
        world("math", "notes"),
        note("budget", "over"),
        [
            call("calculator", expression="3 * 149.99 + 2 * 35.5"),
            call("save_note", title="budget", text="over budget (520.97)"),
            reply("The total is 520.97: over budget."),
        ],
        "conditional",
    ),
    mission(
        "apples-order",
        "Read inventory.txt. If it lists fewer than 10 apples, write a file order.txt saying "
        "'order 20 apples'; otherwise write 'no order needed' to order.txt.",
        world("files", files={"inventory.txt": "apples: 6\npears: 14\nplums: 0\n"}),
        file("order.txt", "apples", numbers=[20]),
        [
            call("read_file", path="inventory.txt"),
            call("write_file", path="order.txt", text="order 20 apples"),
            reply("Only 6 apples: order.txt says 'order 20 apples'."),
        ],
        "conditional",
    ),
    mission(
        "dave-call-slot",
        "Check my calendar for 2026-12-10. If I already have something at 14:00, schedule "
        "'Call with Dave' at 16:00 that day; otherwise schedule it at 14:00.",
        world("calendar", events=[{"title": "Team sync", "date": "2026-12-10", "time": "14:00"}]),
        all_of(event("dave", "2026-12-10", "16:00")),
        [
            call("list_events", date="2026-12-10"),
            call("add_event", title="Call with Dave", date="2026-12-10", time="16:00"),
            reply("14:00 is taken (Team sync), so the call is at 16:00."),
        ],
        "conditional",
    ),
    mission(
        "lisbon-party",
        "1. Check the weather in Lisbon.\n"
        "2. If it is warmer than 15°C, add 'Beach party' to my calendar on 2026-12-20 at "
        "17:00, otherwise add 'House party' at the same time.\n"
        "3. Look up Frank's email address.\n"
        "4. Email Frank which party it is, with the subject 'Invitation'.",
        world("weather", "calendar", "contacts", "email"),
        all_of(
            event("beach", "2026-12-20", "17:00"),
            no_event("house"),
            sent("frank@example.com", "beach"),
        ),
        [
            call("get_weather", city="Lisbon"),
            call("add_event", title="Beach party", date="2026-12-20", time="17:00"),
            call("find_contact", name="Frank"),
            call(
                "send_email",
                to="frank@example.com",
                subject="Invitation",
                body="You are invited to a beach party on 2026-12-20 at 17:00!",
            ),
            reply("Lisbon is 19°C: beach party booked and Frank invited."),
        ],
        "conditional",
    ),
    mission(
        "sunscreen-notes",
        "Check the weather in Oslo, Madrid, Cairo and Reykjavik. For every one of those cities "
        "that is warmer than 20°C, save a note titled with the city's name and the text "
        "'sunscreen'.",
        world("weather", "notes"),
        all_of(
            note("Madrid", "sunscreen"),
            note("Cairo", "sunscreen"),
            no_note("Oslo"),
            no_note("Reykjavik"),
        ),
        [
            call("get_weather", city="Oslo"),
            call("get_weather", city="Madrid"),
            call("get_weather", city="Cairo"),
            call("get_weather", city="Reykjavik"),
            call("save_note", title="Madrid", text="sunscreen"),
            call("save_note", title="Cairo", text="sunscreen"),
            reply("Madrid (25°C) and Cairo (31°C) got a sunscreen note."),
        ],
        "conditional",
        "fan-out",
    ),
    mission(
        "gbp-or-jpy",
        "Which is more money: 300 GBP or 40,000 JPY? Convert both to USD to compare them, and "
        "email the answer to carol@example.com with the subject 'Which is more'.",
        world("money", "email"),
        all_of(sent("carol@example.com", "gbp", numbers=[375]), no_email("bob@example.com")),
        [
            call("convert_currency", amount=300, from_currency="GBP", to_currency="USD"),
            call("convert_currency", amount=40000, from_currency="JPY", to_currency="USD"),
            call(
                "send_email",
                to="carol@example.com",
                subject="Which is more",
                body="300 GBP (375 USD) is more than 40,000 JPY (266.67 USD).",
            ),
            reply("300 GBP is more."),
        ],
        "conditional",
    ),
]

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
