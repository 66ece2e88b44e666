"""docs/qa/agent-eval/suites/: users' suite files, the third to sixth evaluation suites.

Each was written from the README alone by someone who had not seen the other suites; the
report's errands, chores and outings figures come from them (counters, the fourth, is held
out for later). Their reference solutions must solve every mission in both arms, and an
untouched world none.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from taskforce.evals import Mission, evaluate, load_suite, reference_model

SUITES = Path(__file__).resolve().parents[2] / "docs" / "qa" / "agent-eval" / "suites"
FILES = [  # file, missions, single-step missions
    ("errands.py", 14, 3),
    ("chores.py", 16, 4),
    ("outings.py", 16, 4),
    ("counters.py", 16, 4),
]


@pytest.fixture(autouse=True)
def _own_sys_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "path", [*sys.path])


@pytest.mark.parametrize(("name", "missions", "single"), FILES)
async def test_its_references_solve_every_mission_in_both_arms(
    tmp_path: Path, name: str, missions: int, single: int
) -> None:
    suite = load_suite(SUITES / name)
    assert len(suite.missions) == missions
    assert sum("single" in m.tags for m in suite.missions) == single
    result = await evaluate(suite, reference_model, results=tmp_path / "r.jsonl")
    assert [(a.arm, a.solved, a.runs) for a in result.summary.arms] == [
        ("none", missions, missions),
        ("planner", missions, missions),
    ]


@pytest.mark.parametrize("name", [name for name, _, _ in FILES])
async def test_an_untouched_world_solves_nothing(name: str) -> None:
    for mission in load_suite(SUITES / name).missions:
        verdict = await mission.judge(mission.world(), "")
        assert not verdict.solved, mission.id


async def _played(mission: Mission) -> tuple[Any, list[Any], str]:
    """A fresh world of `mission` after its reference calls: (world, their outputs, answer)."""
    world = mission.world()
    tools = {t.name: t for t in world.tools()}
    outputs, answer = [], ""
    for turn in mission.reference:
        for c in turn.tool_calls:
            result = await tools[c.name].execute(**json.loads(c.arguments))
            assert result["success"], result
            outputs.append(result["output"])
        answer = turn.content or answer
    return world, outputs, answer


UNDONE = [  # file, mission, the tool that undoes what the reference made, its arguments
    ("chores.py", "train-full-fallback", "cancel_booking", lambda out: {"booking_id": "BK-3320"}),
    ("chores.py", "bike-cheapest-ebike", "return_bike", lambda out: {"rental_id": "R-103"}),
    ("counters.py", "cinema-paper-moons", "refund_ticket",
     lambda out: {"ticket_id": out[-1]["ticket_id"]}),
    ("outings.py", "resto-haddad-saturday", "cancel_reservation",
     lambda out: {"reservation_id": out[-1]["reservation_id"]}),
]  # fmt: skip


@pytest.mark.parametrize(("name", "mission_id", "undo", "args"), UNDONE)
async def test_what_the_run_made_and_undid_again_does_not_count(
    name: str, mission_id: str, undo: str, args: Callable[[list[Any]], dict[str, Any]]
) -> None:
    mission = next(m for m in load_suite(SUITES / name).missions if m.id == mission_id)
    world, outputs, answer = await _played(mission)
    assert (await mission.judge(world, answer)).solved
    tools = {t.name: t for t in world.tools()}
    result = await tools[undo].execute(**args(outputs))
    assert result["success"], result
    assert not (await mission.judge(world, answer)).solved
