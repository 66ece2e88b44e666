"""The held-out suite: its mix, its world's tools, and wrong answers its checks refuse.

(Every reference solution is replayed in both arms in ``test_builtin.py``.)
"""

from __future__ import annotations

from collections import Counter

import pytest

from taskforce.evals import load_suite
from taskforce.evals.holdout import SUITE
from taskforce.evals.holdout.world import ShopWorld
from taskforce.testing import call, reply
from tests.evals.helpers import run_script

MISSIONS = {m.id: m for m in SUITE.missions}


def test_it_is_a_built_in_suite_with_the_mix_of_the_built_in_one() -> None:
    assert load_suite("holdout") is SUITE
    assert len(SUITE.missions) == 24
    tags = Counter(t for m in SUITE.missions for t in m.tags)
    assert tags == {"single": 4, "chain": 6, "conditional": 5, "fan-out": 5, "long": 4}
    for m in SUITE.missions:
        calls = sum(len(t.tool_calls) for t in m.reference)
        assert ("single" in m.tags) == (calls == 1) and calls <= 7, m.id


async def test_the_shop_refuses_more_than_its_stock_and_keeps_count() -> None:
    world = ShopWorld(("shop",))
    tools = {t.name: t for t in world.tools()}
    refused = await tools["place_order"].execute(item="paper", quantity=6)
    assert not refused["success"] and "only 5 paper in stock" in refused["error"]
    placed = await tools["place_order"].execute(item="Paper", quantity=4)
    assert placed["success"] and "27.20 USD" in placed["output"]
    stock = await tools["check_stock"].execute(item="paper")
    assert stock["output"] == {"item": "paper", "in_stock": 1, "unit_price_usd": 6.8}
    unknown = await tools["check_stock"].execute(item="glue")
    assert not unknown["success"] and "pencils" in unknown["error"]


async def test_the_bank_moves_money_only_when_there_is_enough() -> None:
    world = ShopWorld(("bank",))
    tools = {t.name: t for t in world.tools()}
    too_much = await tools["transfer"].execute(
        from_account="checking", to_account="savings", amount=2000
    )
    assert not too_much["success"] and "1250.00" in too_much["error"]
    assert world.balances == {"checking": 1250.0, "savings": 4300.0}
    moved = await tools["transfer"].execute(
        from_account="savings account", to_account="checking", amount=250
    )
    assert moved["success"] and world.balances == {"checking": 1500.0, "savings": 4050.0}


async def test_the_clock_gives_local_times_and_converts_across_midnight() -> None:
    world = ShopWorld(("clock",))
    tools = {t.name: t for t in world.tools()}
    sydney = await tools["local_time"].execute(city="Sydney")
    assert sydney["output"] == {"city": "Sydney", "date": "2026-12-02", "time": "20:00"}
    tokyo = await tools["convert_time"].execute(time="15:00", from_city="London", to_city="Tokyo")
    assert tokyo["output"] == "00:00 (the next day)"
    early = await tools["convert_time"].execute(time="02:30", from_city="Paris", to_city="Chicago")
    assert early["output"] == "19:30 (the day before)"
    bad = await tools["convert_time"].execute(time="3pm", from_city="London", to_city="Tokyo")
    assert not bad["success"] and "HH:MM" in bad["error"]


def test_its_calculator_shows_no_example_to_copy() -> None:
    """The 1.5B model copied the built-in calculator's example expression into unrelated
    missions; the held-out world's calculator computes the same without one."""
    (calculator,) = ShopWorld(("math",)).tools()
    assert calculator.name == "calculator" and "17" not in calculator.description
    assert ShopWorld().calculator("15 * 1.2") == 18.0


WRONG = {
    # the wrong branch, a wrong amount or a missing item is not solved
    "h-stapler-or-todo": [
        call("check_stock", item="stapler"),
        call("add_todo", text="buy pens", due="2026-12-05"),
        reply("Added."),
    ],
    "h-paper-enough": [
        call("place_order", item="paper", quantity=4),
        call("send_email", to="dave@example.com", subject="Paper", body="1 missing"),
        reply("Done."),
    ],
    "h-repair-cover": [
        call("transfer", from_account="savings", to_account="checking", amount=1500),
        reply("Moved 1500."),
    ],
    "h-supplies-budget": [
        call("place_order", item="notebooks", quantity=4),
        call("place_order", item="markers", quantity=15),
        call("write_file", path="order.txt", text="4 notebooks, 15 markers"),
        reply("Ordered."),
    ],
    "h-three-todos": [
        call("add_todo", text="book flights", due="2026-12-10"),
        call("add_todo", text="pack bags", due="2026-12-11"),
        call("add_todo", text="water the plants", due="2026-12-10"),
        reply("Added."),
    ],
    "h-team-call": [
        call("add_event", title="Team call", date="2026-12-09", time="15:00"),
        call(
            "send_email",
            to="erin@example.com",
            subject="Team call",
            body="Tokyo: 24:00, New York: 10:00",
        ),
        reply("Sent."),
    ],
}


@pytest.mark.parametrize("mission_id", sorted(WRONG))
async def test_a_wrong_value_or_branch_is_not_solved(mission_id: str) -> None:
    record = await run_script(MISSIONS[mission_id], WRONG[mission_id])
    assert not record.solved, record.reason
    assert record.reason
