"""The built-in and held-out suites: every reference solution solves its mission, in both
arms, and broken copies of it do not, so no checker is vacuous."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from taskforce.evals import Mission, RunSettings
from taskforce.evals.builtin import SUITE
from taskforce.evals.builtin.world import READ_ONLY
from taskforce.evals.holdout import SUITE as HOLDOUT
from taskforce.evals.holdout.world import READ_ONLY as HOLDOUT_READ_ONLY
from taskforce.evals.reference import reference_script
from taskforce.evals.runner import run_key, run_mission
from taskforce.testing import ScriptedModel, call, reply
from taskforce.tools.base import is_read_only
from tests.evals.helpers import NONE, PLANNER, run_script

MISSIONS = {m.id: m for m in SUITE.missions}
BOTH = (*SUITE.missions, *HOLDOUT.missions)
"""Both suites' missions (their ids are distinct: checked below)."""


def test_the_two_suites_share_no_mission_id() -> None:
    assert len({m.id for m in BOTH}) == len(BOTH)


def test_the_suite_has_the_mix_the_issue_asks_for() -> None:
    assert len(SUITE.missions) >= 40
    tags = Counter(t for m in SUITE.missions for t in m.tags)
    assert tags["single"] >= 8
    assert tags["conditional"] >= 5 and tags["fan-out"] >= 5 and tags["chain"] >= 5
    for m in SUITE.missions:
        work = [t for t in m.reference if t.tool_calls]
        calls = sum(len(t.tool_calls) for t in work)
        assert 1 <= calls <= 7, m.id
        assert ("single" in m.tags) == (calls == 1), m.id


@pytest.mark.parametrize("mission", BOTH, ids=lambda m: m.id)
async def test_reference_solves_it_in_both_arms(mission: Mission) -> None:
    for arm in (NONE, PLANNER):
        record = await run_script(mission, reference_script(mission, arm.planning), arm)
        assert record.solved, (arm.name, record.reason, record.errors)
        assert record.status == "completed" and not record.false_completion
        assert record.no_work_ticks == 0
        if arm.planning:
            assert record.all_ticked and record.planning_tokens > 0


@pytest.mark.parametrize("mission", BOTH, ids=lambda m: m.id)
async def test_without_its_last_action_it_is_not_solved(mission: Mission) -> None:
    work = [t for t in mission.reference if t.tool_calls]
    broken = [*work[:-1], reply("Done, everything is finished.")]
    record = await run_script(mission, broken)
    assert not record.solved, record.reason
    assert record.false_completion  # it said it was finished
    nothing = await run_script(mission, [reply("All done!")])
    assert not nothing.solved and nothing.false_completion


WRONG = {
    # the wrong branch of a condition, or a wrong value, is not solved
    "reykjavik-coat": [
        call("get_weather", city="Reykjavik"),
        call(
            "send_email", to="bob@example.com", subject="Weather", body="A light jacket is enough."
        ),
        reply("Sent."),
    ],
    "london-rain-gym": [
        call("add_event", title="Indoor gym", date="2026-12-05", time="18:00"),
        call("add_event", title="Park run", date="2026-12-05", time="18:00"),
        reply("Added both."),
    ],
    "sunscreen-notes": [
        call("save_note", title="Madrid", text="sunscreen"),
        call("save_note", title="Cairo", text="sunscreen"),
        call("save_note", title="Oslo", text="sunscreen"),
        reply("Done."),
    ],
    "calc-chain-note": [call("save_note", title="result", text="391"), reply("391")],
    "usd-to-eur": [reply("250 USD is about 230 EUR.")],
    "dave-call-slot": [
        call("add_event", title="Call with Dave", date="2026-12-10", time="14:00"),
        reply("Booked at 14:00."),
    ],
    "apples-order": [call("write_file", path="order.txt", text="no order needed"), reply("ok")],
    "draft-todo-final": [
        call("write_file", path="final.txt", text="intro: TODO\nbudget: 300\nsummary: done\n"),
        reply("ok"),
    ],
    "gbp-or-jpy": [
        call(
            "send_email",
            to="carol@example.com",
            subject="Which is more",
            body="40,000 JPY is more (266.67 USD vs 300 GBP).",
        ),
        reply("JPY."),
    ],
    "three-notes-count": [
        call("save_note", title="milk", text="buy 2 litres of milk"),
        call("save_note", title="call", text="call mum on Sunday"),
        call("save_note", title="gym", text="gym at 7am"),
        reply("You have 3 notes."),
    ],
}


@pytest.mark.parametrize("mission_id", sorted(WRONG))
async def test_a_wrong_value_or_branch_is_not_solved(mission_id: str) -> None:
    record = await run_script(MISSIONS[mission_id], WRONG[mission_id])
    assert not record.solved, record.reason
    assert record.reason  # the checker says why


def test_tools_explain_their_errors() -> None:
    world = MISSIONS["lunch-email"].world()
    (send,) = world.tools()
    assert send.name == "send_email"
    assert "find_contact" in send.description


async def test_tool_errors_name_what_is_accepted() -> None:
    mission = MISSIONS["laptop-price-alice"]
    record = await run_script(
        mission,
        [
            call("convert_currency", amount=1200, from_currency="dollars", to_currency="GBP"),
            call("send_email", to="Alice", subject="x", body="960"),
            reply("Could not."),
        ],
    )
    results = [m["content"] for m in record.transcript["messages"] if m["role"] == "tool"]
    assert "use one of USD, EUR, GBP" in results[0]
    assert "unsupported_value" in results[1]  # '960' came from no tool: asked, then made again
    assert "look the address up with find_contact" in results[2]
    assert not record.solved


SINGLE = [m for m in BOTH if "single" in m.tags]


@pytest.mark.parametrize("mission", SINGLE, ids=lambda m: m.id)
async def test_a_single_step_mission_asks_the_model_the_same_in_both_arms(
    mission: Mission,
) -> None:
    """The planner is not offered where a mission needs no plan: the `planner` arm's
    requests are those of `none`, so at temperature 0 it cannot do worse there."""
    seen: list[object] = []
    for arm in (NONE, PLANNER):
        model = ScriptedModel(reference_script(mission, planning=False))
        settings = RunSettings(max_steps=30)
        key = run_key("t", mission, arm, 0, model.name, settings)
        record = await run_mission(mission, arm, model, key, settings)
        assert record.solved and record.plan_steps == 0, (arm.name, record.reason)
        seen.append([(r.messages, r.tools) for r in model.requests])
    assert seen[0] == seen[1]


async def test_the_tools_marked_read_only_change_nothing_and_the_others_do() -> None:
    """Every call of every reference solution, run on its mission's world: a read-only
    tool leaves the world as it was; each tool that is not read-only changed it once."""
    changed: dict[str, bool] = {}
    for mission in BOTH:
        world = mission.world()
        tools = {t.name: t for t in world.tools()}
        for turn in mission.reference:
            for tool_call in turn.tool_calls:
                tool = tools[tool_call.name]
                before = world.snapshot()
                await tool.execute(**json.loads(tool_call.arguments))
                same = world.snapshot() == before
                if is_read_only(tool):
                    assert same, f"{mission.id}: {tool.name} is read-only but changed the world"
                else:
                    changed[tool.name] = changed.get(tool.name, False) or not same
    assert changed and all(changed.values()), changed  # no tool is left unmarked by mistake
    read_only = READ_ONLY | HOLDOUT_READ_ONLY
    assert set(changed) | read_only >= {n for m in BOTH for n in _names(m)}


def _names(mission: Mission) -> set[str]:
    return {t.name for t in mission.world().tools()}
