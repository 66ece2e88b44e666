"""Single-step missions, and short chains whose later steps need an earlier result.

On single-step missions planning should stay out of the way.
"""

from __future__ import annotations

from taskforce.evals.builtin.checks import all_of, answer, event, file, mission, note, sent, world
from taskforce.evals.mission import Mission
from taskforce.testing import call, reply

SALES = "item,amount\nkeyboard,120\nmouse,75.50\nmonitor,304.50\n"

SINGLE: list[Mission] = [
    mission(
        "weather-lisbon",
        "What's the weather like in Lisbon right now?",
        world("weather"),
        answer(numbers=[19]),
        [call("get_weather", city="Lisbon"), reply("It is 19°C and sunny in Lisbon.")],
        "single",
    ),
    mission(
        "usd-to-eur",
        "How much is 250 US dollars in euros?",
        world("money"),
        answer(numbers=[225]),
        [
            call("convert_currency", amount=250, from_currency="USD", to_currency="EUR"),
            reply("250 USD is 225.00 EUR."),
        ],
        "single",
    ),
    mission(
        "multiply",
        "Compute 1234 * 56 for me.",
        world("math"),
        answer(numbers=[69104]),
        [call("calculator", expression="1234 * 56"), reply("1234 * 56 = 69,104.")],
        "single",
    ),
    mission(
        "wifi-note",
        "Save a note titled 'wifi' with the text 'guest password: tulip42'.",
        world("notes"),
        note("wifi", "tulip42"),
        [call("save_note", title="wifi", text="guest password: tulip42"), reply("Saved.")],
        "single",
    ),
    mission(
        "carol-phone",
        "What is Carol's phone number?",
        world("contacts"),
        answer("22 55 01 42"),
        [call("find_contact", name="Carol"), reply("Carol's number is +47 22 55 01 42.")],
        "single",
    ),
    mission(
        "lunch-email",
        "Send an email to dave@example.com with the subject 'Lunch' asking "
        "'Lunch at noon on Friday?'",
        world("email"),
        sent("dave@example.com", "lunch", "friday"),
        [
            call(
                "send_email",
                to="dave@example.com",
                subject="Lunch",
                body="Lunch at noon on Friday?",
            ),
            reply("Sent."),
        ],
        "single",
    ),
    mission(
        "km-to-miles",
        "Convert 42 kilometres to miles.",
        world("units"),
        answer(numbers=[26.1], tol=0.01),
        [call("convert_units", value=42, from_unit="km", to_unit="mi"), reply("26.1 miles.")],
        "single",
    ),
    mission(
        "dentist",
        "Put 'Dentist' in my calendar on 2026-12-03 at 09:30.",
        world("calendar"),
        event("dentist", "2026-12-03", "09:30"),
        [
            call("add_event", title="Dentist", date="2026-12-03", time="09:30"),
            reply("Added."),
        ],
        "single",
    ),
]

CHAINS: list[Mission] = [
    mission(
        "calc-chain-note",
        "Compute 17 * 23, then add 100 to the result, and save a note titled 'result' with "
        "the final number.",
        world("math", "notes"),
        note("result", numbers=[491]),
        [
            call("calculator", expression="17 * 23"),
            call("calculator", expression="391 + 100"),
            call("save_note", title="result", text="491"),
            reply("The final number is 491; saved in the note 'result'."),
        ],
        "chain",
    ),
    mission(
        "oslo-fahrenheit",
        "Get the weather in Oslo, convert its temperature to Fahrenheit and tell me the result.",
        world("weather", "units"),
        answer(numbers=[39.2]),
        [
            call("get_weather", city="Oslo"),
            call("convert_units", value=4, from_unit="c", to_unit="f"),
            reply("It is 4°C in Oslo, which is 39.2°F."),
        ],
        "chain",
    ),
    mission(
        "laptop-price-alice",
        "A laptop costs 1200 USD. Convert that to British pounds and email the amount to "
        "Alice (her address is in my contacts) with the subject 'Laptop price'.",
        world("money", "contacts", "email"),
        sent("alice@example.com", numbers=[960]),
        [
            call("convert_currency", amount=1200, from_currency="USD", to_currency="GBP"),
            call("find_contact", name="Alice"),
            call(
                "send_email",
                to="alice@example.com",
                subject="Laptop price",
                body="The laptop costs 960 GBP.",
            ),
            reply("Emailed Alice: 960 GBP."),
        ],
        "chain",
    ),
    mission(
        "bob-meeting",
        "look up bob's email and send him a message (subject 'Meeting') telling him the "
        "meeting moved to 3pm",
        world("contacts", "email"),
        sent("bob@example.com", "3"),
        [
            call("find_contact", name="Bob"),
            call(
                "send_email",
                to="bob@example.com",
                subject="Meeting",
                body="Hi Bob, the meeting moved to 3pm.",
            ),
            reply("Done: Bob knows the meeting moved to 3pm."),
        ],
        "chain",
    ),
    mission(
        "sales-total-file",
        "Read sales.csv, add up the amounts in it and write the total to a file named total.txt.",
        world("files", "math", files={"sales.csv": SALES}),
        file("total.txt", numbers=[500]),
        [
            call("read_file", path="sales.csv"),
            call("calculator", expression="120 + 75.50 + 304.50"),
            call("write_file", path="total.txt", text="500"),
            reply("The total is 500; written to total.txt."),
        ],
        "chain",
    ),
    mission(
        "shopping-to-erin",
        "Read my note titled 'shopping' and email its contents to erin@example.com with the "
        "subject 'Shopping list'.",
        world("notes", "email", notes={"shopping": "eggs, flour, 2 lemons, basil"}),
        sent("erin@example.com", "eggs", "flour", "lemons", "basil"),
        [
            call("read_note", title="shopping"),
            call(
                "send_email",
                to="erin@example.com",
                subject="Shopping list",
                body="eggs, flour, 2 lemons, basil",
            ),
            reply("Sent the shopping list to Erin."),
        ],
        "chain",
    ),
    mission(
        "average-temperature",
        "Get the temperatures of Berlin, Madrid and London and tell me their average.",
        world("weather", "math"),
        answer(numbers=[15]),
        [
            call("get_weather", city="Berlin"),
            call("get_weather", city="Madrid"),
            call("get_weather", city="London"),
            call("calculator", expression="(9 + 25 + 11) / 3"),
            reply("The average is 15°C."),
        ],
        "chain",
    ),
    mission(
        "trip-budget-yen",
        "My trip costs 800 EUR for the hotel and 350 EUR for flights. Convert the total to "
        "Japanese yen and save it in a note titled 'trip budget'.",
        world("math", "money", "notes"),
        note("trip budget", numbers=[191666.67], tol=1.0),
        [
            call("calculator", expression="800 + 350"),
            call("convert_currency", amount=1150, from_currency="EUR", to_currency="JPY"),
            call("save_note", title="trip budget", text="191666.67 JPY"),
            reply("The trip costs 191,666.67 JPY; saved."),
        ],
        "chain",
    ),
    mission(
        "running-km",
        "I ran 5 miles on Monday, 3.5 miles on Wednesday and 8 miles on Saturday. How many "
        "kilometres is that in total? Save the answer in a note titled 'running'.",
        world("math", "units", "notes"),
        note("running", numbers=[26.55], tol=0.02),
        [
            call("calculator", expression="5 + 3.5 + 8"),
            call("convert_units", value=16.5, from_unit="mi", to_unit="km"),
            call("save_note", title="running", text="26.55 km this week"),
            reply("16.5 miles is 26.55 km; saved in 'running'."),
        ],
        "chain",
    ),
    mission(
        "paris-berlin-hours",
        "The drive from Paris to Berlin is 1054 km. Convert that to miles, then work out how "
        "many hours it takes at 60 miles per hour. Tell me the hours, rounded to one decimal.",
        world("units", "math"),
        answer(numbers=[10.9], tol=0.01),
        [
            call("convert_units", value=1054, from_unit="km", to_unit="mi"),
            call("calculator", expression="654.93 / 60"),
            reply("About 10.9 hours."),
        ],
        "chain",
    ),
    mission(
        "commission",
        "Compute 12.5% of 2,480 and email the result to both Bob and Carol with the subject "
        "'Commission'. Their addresses are in my contacts.",
        world("math", "contacts", "email"),
        all_of(sent("bob@example.com", numbers=[310]), sent("carol@example.com", numbers=[310])),
        [
            call("calculator", expression="2480 * 12.5 / 100"),
            call("find_contact", name="Bob"),
            call("find_contact", name="Carol"),
            call("send_email", to="bob@example.com", subject="Commission", body="310"),
            call("send_email", to="carol@example.com", subject="Commission", body="310"),
            reply("Both got 310."),
        ],
        "chain",
    ),
]
