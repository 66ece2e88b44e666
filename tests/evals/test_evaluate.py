"""evaluate(): the grid, results stored as they come, resuming, and the summary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from taskforce.errors import ConfigurationError
from taskforce.evals import Progress, ResultStore, Suite, evaluate, reference_model
from taskforce.evals.builtin import SUITE

SMALL = Suite("small", SUITE.missions[:3])


class Interrupt(Exception):
    """Stands for Ctrl-C in the middle of an evaluation."""


async def test_every_mission_in_every_arm_then_paired(tmp_path: Path) -> None:
    seen: list[Progress] = []
    result = await evaluate(
        SMALL, reference_model, arms="none,planner", results=tmp_path / "r.jsonl",
        on_progress=seen.append,
    )  # fmt: skip
    assert [(r.key.mission, r.key.arm) for r in result.records] == [
        (m.id, arm) for m in SMALL.missions for arm in ("none", "planner")
    ]
    assert seen[0].record is None and seen[-1].done == seen[-1].total == 6
    summary = result.summary
    assert [(a.arm, a.solved, a.runs) for a in summary.arms] == [("none", 3, 3), ("planner", 3, 3)]
    (comparison,) = summary.comparisons
    assert comparison.a == "small:planner" and comparison.both == 3
    assert result.records[0].meta["arm_spec"] == "none"
    assert result.records[0].meta["commit"]


async def test_an_interrupted_evaluation_resumes_where_it_stopped(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"

    def stop_after_two(p: Progress) -> None:
        if p.done == 2:
            raise Interrupt

    with pytest.raises(Interrupt):
        await evaluate(SMALL, reference_model, results=path, on_progress=stop_after_two)
    assert len(path.read_text().splitlines()) == 2
    with path.open("a") as f:
        f.write('{"key": {"suite": "small", "torn')  # a write cut short by a crash
    result = await evaluate(SMALL, reference_model, results=path)
    assert (result.reused, result.ran) == (2, 4)
    assert len(ResultStore(path).latest()) == 6
    again = await evaluate(SMALL, reference_model, results=path)
    assert (again.reused, again.ran) == (6, 0)
    for line in path.read_text().splitlines():
        if "torn" not in line:
            json.loads(line)


async def test_other_settings_are_other_runs(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    await evaluate(SMALL, reference_model, arms="none", results=path, limit=1)
    strict = await evaluate(
        SMALL, reference_model, arms="none,strict=planner+require_work_before_done=true",
        results=path, limit=1, repeat=2,
    )  # fmt: skip
    assert (strict.reused, strict.ran) == (1, 3)
    assert {r.key.arm for r in strict.records} == {"none", "strict"}
    assert {r.key.repeat for r in strict.records} == {0, 1}


async def test_bad_arguments_are_refused_before_anything_runs(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="repeat"):
        await evaluate(SMALL, reference_model, repeat=0)
    with pytest.raises(ConfigurationError, match="no mission 'nope'"):
        await evaluate(SMALL, reference_model, missions=["nope"])
    with pytest.raises(ConfigurationError, match="unknown arm"):
        await evaluate(SMALL, reference_model, arms="none,plannr")
    with pytest.raises(ConfigurationError, match="folder"):
        ResultStore(tmp_path)


async def test_two_evaluations_can_share_one_results_file(tmp_path: Path) -> None:
    import asyncio

    path = tmp_path / "r.jsonl"
    other = Suite("other", SUITE.missions[3:6])
    await asyncio.gather(
        evaluate(SMALL, reference_model, results=path),
        evaluate(other, reference_model, results=path),
    )
    records = ResultStore(path).latest()
    assert len(records) == 12 and {r.key.suite for r in records} == {"small", "other"}
