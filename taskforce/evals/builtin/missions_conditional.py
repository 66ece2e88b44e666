"""Missions with a condition: the right branch must happen, and the wrong one must not."""

from __future__ import annotations

from taskforce.evals.builtin.checks import (
    all_of,
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
