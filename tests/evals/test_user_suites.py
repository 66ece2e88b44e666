"""docs/qa/agent-eval/suites/: users' suite files, the third to sixth evaluation suites.

Each was written from the README alone by someone who had not seen the other suites; the
report's errands, chores and outings figures come from them (counters, the fourth, is held
out for later). Their reference solutions must solve every mission in both arms, and an
untouched world none.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from taskforce.evals import evaluate, load_suite, reference_model

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
