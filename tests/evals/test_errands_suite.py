"""docs/qa/agent-eval/suites/errands.py: a user's suite file, as the third evaluation suite.

It was written from the README alone; the report's errands figures come from it. Its
reference solutions must solve every mission in both arms, and an untouched world none.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from taskforce.evals import evaluate, load_suite, reference_model

ERRANDS = (
    Path(__file__).resolve().parents[2] / "docs" / "qa" / "agent-eval" / "suites" / "errands.py"
)


@pytest.fixture(autouse=True)
def _own_sys_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "path", [*sys.path])


async def test_its_references_solve_every_mission_in_both_arms(tmp_path: Path) -> None:
    suite = load_suite(ERRANDS)
    assert len(suite.missions) == 14
    assert sum("single" in m.tags for m in suite.missions) == 3
    result = await evaluate(suite, reference_model, results=tmp_path / "r.jsonl")
    assert [(a.arm, a.solved, a.runs) for a in result.summary.arms] == [
        ("none", 14, 14),
        ("planner", 14, 14),
    ]


async def test_an_untouched_world_solves_nothing() -> None:
    for mission in load_suite(ERRANDS).missions:
        verdict = await mission.judge(mission.world(), "")
        assert not verdict.solved, mission.id
