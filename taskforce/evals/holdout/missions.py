"""The held-out missions: 24 errands, mostly over tools the built-in suite does not have.

Written after the agent's levers were tuned on the built-in suite, and not to be tuned on:
a change that helps only the built-in suite should show here as no gain.
"""

from __future__ import annotations

from taskforce.evals.builtin.checks import (
    all_of,
    answer,
    event,
    file,
    mission,
    no_email,
    note,
    sent,
)
from taskforce.evals.holdout.checks import balance, no_order, order, shop_world, todo
from taskforce.evals.mission import Mission
from taskforce.testing import call, reply

SINGLE: list[Mission] = [
    mission(
        "h-notebook-stock",
        "How many notebooks do we have in stock?",
        shop_world("shop"),
        answer(numbers=[12]),
        [call("check_stock", item="notebooks"), reply("12 notebooks are in stock.")],
        "single",
    ),
    mission(
        "h-tokyo-time",
        "What time is it in Tokyo right now?",
        shop_world("clock"),
        answer("18:00"),
        [call("local_time", city="Tokyo"), reply("It is 18:00 in Tokyo.")],
        "single",
    ),
    mission(
        "h-savings-balance",
        "how much is in my savings account?",
        shop_world("bank"),
        answer(numbers=[4300]),
        [call("get_balance", account="savings"), reply("Your savings hold 4,300 USD.")],
        "single",
    ),
    mission(
        "h-passport-todo",
        "Put 'renew passport' on my to-do list for 2026-12-20.",
        shop_world("todo"),
        todo("2026-12-20", "passport"),
        [call("add_todo", text="renew passport", due="2026-12-20"), reply("Added.")],
        "single",
    ),
]

CHAINS: list[Mission] = [
    mission(
        "h-markers-cost-note",
        "Look up the price of markers, work out what 15 markers cost, and save the cost in a "
        "note titled 'markers'.",
        shop_world("shop", "math", "notes"),
        note("markers", numbers=[18]),
        [
            call("check_stock", item="markers"),
            call("calculator", expression="15 * 1.2"),
            call("save_note", title="markers", text="15 markers cost 18.00 USD"),
            reply("15 markers cost 18 USD; saved."),
        ],
        "chain",
    ),
    mission(
        "h-pancakes-for-10",
        "Get the pancake recipe and tell me how many grams of flour I need to make pancakes "
        "for 10 people.",
        shop_world("recipes", "math"),
        answer(numbers=[625]),
        [
            call("get_recipe", dish="pancakes"),
            call("calculator", expression="250 / 4 * 10"),
            reply("You need 625 g of flour."),
        ],
        "chain",
    ),
    mission(
        "h-top-up-savings",
        "Move 200 dollars from checking to savings, then tell me my new savings balance.",
        shop_world("bank"),
        all_of(balance("savings", 4500), balance("checking", 1050), answer(numbers=[4500])),
        [
            call("transfer", from_account="checking", to_account="savings", amount=200),
            call("get_balance", account="savings"),
            reply("Done: your savings now hold 4,500 USD."),
        ],
        "chain",
    ),
    mission(
        "h-ny-time-bob",
        "Find out what time it is in New York and email it to Bob (bob@example.com) with the "
        "subject 'NY time'.",
        shop_world("clock", "email"),
        sent("bob@example.com", "04:00"),
        [
            call("local_time", city="New York"),
            call("send_email", to="bob@example.com", subject="NY time", body="It is 04:00."),
            reply("Sent: it is 04:00 in New York."),
        ],
        "chain",
    ),
    mission(
        "h-frank-phone-note",
        "Save Frank's phone number in a note titled 'frank'.",
        shop_world("contacts", "notes"),
        note("frank", "555 0175"),
        [
            call("find_contact", name="Frank"),
            call("save_note", title="frank", text="+49 30 555 0175"),
            reply("Saved."),
        ],
        "chain",
    ),
    mission(
        "h-checking-in-gbp",
        "What is my checking balance worth in pounds (GBP)?",
        shop_world("bank", "money"),
        answer(numbers=[1000]),
        [
            call("get_balance", account="checking"),
            call("convert_currency", amount=1250, from_currency="USD", to_currency="GBP"),
            reply("Your checking balance is worth 1,000 GBP."),
        ],
        "chain",
    ),
]

CONDITIONAL: list[Mission] = [
    mission(
        "h-stapler-or-todo",
        "If the shop has a stapler in stock, order one. If not, add 'buy a stapler' to my "
        "to-do list, due 2026-12-05.",
        shop_world("shop", "todo"),
        all_of(todo("2026-12-05", "stapler"), no_order("stapler")),
        [
            call("check_stock", item="stapler"),
            call("add_todo", text="buy a stapler", due="2026-12-05"),
            reply("No staplers in stock, so I added it to your to-do list."),
        ],
        "conditional",
    ),
    mission(
        "h-paper-enough",
        "I need 4 packs of paper. If there are at least 4 in stock, order 4; if not, email "
        "dave@example.com saying how many are missing.",
        shop_world("shop", "email"),
        all_of(order("paper", 4), no_email("dave@example.com")),
        [
            call("check_stock", item="paper"),
            call("place_order", item="paper", quantity=4),
            reply("5 were in stock; I ordered 4."),
        ],
        "conditional",
    ),
    mission(
        "h-sydney-late",
        "Check the time in Sydney. If it is after 17:00 there, add a to-do 'call the Sydney "
        "office' due 2026-12-03; otherwise email erin@example.com asking her to call them "
        "today.",
        shop_world("clock", "todo", "email"),
        all_of(todo("2026-12-03", "sydney"), no_email("erin@example.com")),
        [
            call("local_time", city="Sydney"),
            call("add_todo", text="call the Sydney office", due="2026-12-03"),
            reply("It is 20:00 in Sydney; I added the to-do."),
        ],
        "conditional",
    ),
    mission(
        "h-repair-cover",
        "The car repair costs 1500 dollars and I pay it from checking. If checking has "
        "enough, just tell me. If not, transfer exactly the missing amount from savings to "
        "checking.",
        shop_world("bank", "math"),
        all_of(balance("checking", 1500), balance("savings", 4050)),
        [
            call("get_balance", account="checking"),
            call("calculator", expression="1500 - 1250"),
            call("transfer", from_account="savings", to_account="checking", amount=250),
            reply("Checking had 1,250 USD; I moved the missing 250 USD from savings."),
        ],
        "conditional",
    ),
    mission(
        "h-warmer-city-note",
        "Which is warmer right now, Madrid or Cairo? Save the name of the warmer city in a "
        "note titled 'trip'.",
        shop_world("weather", "notes"),
        note("trip", "cairo"),
        [
            call("get_weather", city="Madrid"),
            call("get_weather", city="Cairo"),
            call("save_note", title="trip", text="Cairo"),
            reply("Cairo (31°C) is warmer than Madrid (25°C); saved."),
        ],
        "conditional",
    ),
]

FAN_OUT: list[Mission] = [
    mission(
        "h-stock-file",
        "Check how many pencils, markers and tape we have in stock and write them to "
        "stock.txt, one item per line.",
        shop_world("shop", "files"),
        file("stock.txt", "pencils", "markers", "tape", numbers=[40, 25, 8]),
        [
            call("check_stock", item="pencils"),
            call("check_stock", item="markers"),
            call("check_stock", item="tape"),
            call("write_file", path="stock.txt", text="pencils: 40\nmarkers: 25\ntape: 8\n"),
            reply("Written."),
        ],
        "fan-out",
    ),
    mission(
        "h-clocks-note",
        "Save a note titled 'clocks' with the current time in London, Paris and Tokyo.",
        shop_world("clock", "notes"),
        note("clocks", "09:00", "10:00", "18:00"),
        [
            call("local_time", city="London"),
            call("local_time", city="Paris"),
            call("local_time", city="Tokyo"),
            call("save_note", title="clocks", text="London 09:00, Paris 10:00, Tokyo 18:00"),
            reply("Saved."),
        ],
        "fan-out",
    ),
    mission(
        "h-three-todos",
        "Add these to my to-do list, all due 2026-12-10: book flights, pack bags, water the "
        "plants.",
        shop_world("todo"),
        all_of(
            todo("2026-12-10", "flights"), todo("2026-12-10", "bags"), todo("2026-12-10", "plants")
        ),
        [
            call("add_todo", text="book flights", due="2026-12-10"),
            call("add_todo", text="pack bags", due="2026-12-10"),
            call("add_todo", text="water the plants", due="2026-12-10"),
            reply("All three added."),
        ],
        "fan-out",
    ),
    mission(
        "h-balances-to-alice",
        "Email Alice both of my account balances with the subject 'Balances'. Her address is "
        "in my contacts.",
        shop_world("bank", "contacts", "email"),
        sent("alice@example.com", numbers=[1250, 4300]),
        [
            call("get_balance", account="checking"),
            call("get_balance", account="savings"),
            call("find_contact", name="Alice"),
            call(
                "send_email",
                to="alice@example.com",
                subject="Balances",
                body="Checking: 1250 USD. Savings: 4300 USD.",
            ),
            reply("Sent."),
        ],
        "fan-out",
    ),
    mission(
        "h-two-orders-total",
        "Order 10 pencils and 2 notebooks, then tell me what the two orders cost together.",
        shop_world("shop", "math"),
        all_of(order("pencils", 10), order("notebooks", 2), answer(numbers=[11.5])),
        [
            call("place_order", item="pencils", quantity=10),
            call("place_order", item="notebooks", quantity=2),
            call("calculator", expression="5 + 6.5"),
            reply("Both ordered: 11.50 USD in all."),
        ],
        "fan-out",
    ),
]

LONG: list[Mission] = [
    mission(
        "h-lemonade-party",
        "1. Get the lemonade recipe.\n"
        "2. Work out how many lemons I need for 12 people.\n"
        "3. Add 'buy N lemons' (with the number) to my to-do list, due 2026-12-12.\n"
        "4. Email Carol the number of lemons with the subject 'Lemons' (her address is in my "
        "contacts).",
        shop_world("recipes", "math", "todo", "contacts", "email"),
        all_of(todo("2026-12-12", "18", "lemons"), sent("carol@example.com", numbers=[18])),
        [
            call("get_recipe", dish="lemonade"),
            call("calculator", expression="6 / 4 * 12"),
            call("add_todo", text="buy 18 lemons", due="2026-12-12"),
            call("find_contact", name="Carol"),
            call(
                "send_email",
                to="carol@example.com",
                subject="Lemons",
                body="We need 18 lemons.",
            ),
            reply("18 lemons: added to the list and sent to Carol."),
        ],
        "long",
    ),
    mission(
        "h-supplies-budget",
        "I have 30 dollars for office supplies. Check the prices of notebooks and markers. "
        "Order 4 notebooks, then order as many markers as the money left will buy, and write "
        "order.txt listing both orders.",
        shop_world("shop", "math", "files"),
        all_of(order("notebooks", 4), order("markers", 14), file("order.txt", numbers=[4, 14])),
        [
            call("check_stock", item="notebooks"),
            call("check_stock", item="markers"),
            call("calculator", expression="(30 - 4 * 3.25) / 1.2"),
            call("place_order", item="notebooks", quantity=4),
            call("place_order", item="markers", quantity=14),
            call("write_file", path="order.txt", text="4 notebooks: 13.00 USD\n14 markers"),
            reply("Ordered 4 notebooks and 14 markers (29.80 USD)."),
        ],
        "long",
    ),
    mission(
        "h-team-call",
        "Put 'Team call' on my calendar on 2026-12-09 at 15:00 (London time). Then work out "
        "what time that is in Tokyo and in New York, and email erin@example.com both times "
        "with the subject 'Team call'.",
        shop_world("calendar", "clock", "email"),
        all_of(
            event("team call", "2026-12-09", "15:00"),
            sent("erin@example.com", "00:00", "10:00"),
        ),
        [
            call("add_event", title="Team call", date="2026-12-09", time="15:00"),
            call("convert_time", time="15:00", from_city="London", to_city="Tokyo"),
            call("convert_time", time="15:00", from_city="London", to_city="New York"),
            call(
                "send_email",
                to="erin@example.com",
                subject="Team call",
                body="Tokyo: 00:00 (the next day). New York: 10:00.",
            ),
            reply("Added, and Erin has both times."),
        ],
        "long",
    ),
    mission(
        "h-savings-goal",
        "My savings goal is 5000 dollars. Check my savings balance, work out how much is "
        "missing, transfer that amount from checking to savings, and save a note titled "
        "'goal' with the new savings balance.",
        shop_world("bank", "math", "notes"),
        all_of(balance("savings", 5000), balance("checking", 550), note("goal", numbers=[5000])),
        [
            call("get_balance", account="savings"),
            call("calculator", expression="5000 - 4300"),
            call("transfer", from_account="checking", to_account="savings", amount=700),
            call("save_note", title="goal", text="Goal reached: savings hold 5000 USD."),
            reply("Moved 700 USD; savings are at 5,000 USD."),
        ],
        "long",
    ),
]
