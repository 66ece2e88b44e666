"""evaluate(): the grid, results stored as they come, resuming, and the summary."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from taskforce.errors import ConfigurationError, ProviderError
from taskforce.evals import (
    Arm,
    Mission,
    Progress,
    ResultStore,
    RunSettings,
    Suite,
    evaluate,
    parse_arms,
    reference_model,
)
from taskforce.evals.builtin import SUITE
from taskforce.evals.reference import REFERENCE
from taskforce.evals.sampling import request_seed
from taskforce.models.base import Model
from taskforce.models.offline import OfflineModel
from taskforce.testing import ScriptedModel
from tests.evals.helpers import Sampler

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


async def test_a_provider_outage_stops_the_evaluation_and_a_rerun_resumes(
    tmp_path: Path,
) -> None:
    path = tmp_path / "r.jsonl"
    down = SUITE.missions[1].id

    def flaky(mission: Mission, arm: Arm) -> Model:  # the server goes away at mission 2
        if mission.id == down:
            return ScriptedModel([ProviderError("connection refused", retryable=True)])
        return reference_model(mission, arm)

    with pytest.raises(ProviderError, match="connection refused"):
        await evaluate(SMALL, flaky, arms="none", results=path)
    assert [r.key.mission for r in ResultStore(path).latest()] == [SUITE.missions[0].id]
    back = await evaluate(SMALL, reference_model, arms="none", results=path)
    assert (back.reused, back.ran) == (1, 2)  # the run the outage stopped is made now
    assert [r.solved for r in back.records] == [True, True, True]


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
    with pytest.raises(ConfigurationError, match="suite must be a Suite, not NoneType"):
        await evaluate(None, reference_model)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="results must be a file path"):
        await evaluate(SMALL, reference_model, results=5)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="arms must be text"):
        await evaluate(SMALL, reference_model, arms=[1])  # type: ignore[list-item]
    with pytest.raises(ConfigurationError, match="each named once: none, none"):
        await evaluate(SMALL, reference_model, arms=["none", parse_arms("none")[0]])
    with pytest.raises(ConfigurationError, match="limit must be"):
        await evaluate(SMALL, reference_model, limit=1.5)  # type: ignore[arg-type]


async def test_arms_and_missions_given_as_lists_or_one_name(tmp_path: Path) -> None:
    (strict,) = parse_arms("strict=planner+require_work_before_done=true")
    result = await evaluate(
        SMALL, reference_model, arms=["none", strict], missions=SMALL.missions[1].id
    )
    assert [(r.key.mission, r.key.arm) for r in result.records] == [
        (SMALL.missions[1].id, "none"), (SMALL.missions[1].id, "strict")
    ]  # fmt: skip


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


async def test_sampled_repeats_are_seeded_paths_kept_apart_from_greedy_runs(
    tmp_path: Path,
) -> None:
    asked: list[dict[str, Any]] = []

    def factory(mission: Mission, arm: Arm) -> Model:
        return Sampler(reference_model(mission, arm), asked)

    path = tmp_path / "r.jsonl"
    greedy = await evaluate(SMALL, factory, arms="none", results=path, limit=1, repeat=2)
    assert asked == [] and greedy.ran == 2  # greedy runs use the model as it is
    settings = RunSettings(temperature=0.7, seed=5)
    sampled = await evaluate(
        SMALL, factory, arms="none", results=path, limit=1, repeat=2, settings=settings
    )
    assert (sampled.ran, sampled.reused) == (2, 0)  # not the greedy runs under another name
    first = sampled.records[0].turns  # requests of repeat 0's run, then repeat 1's
    seeds = [a.pop("seed") for a in asked]
    assert asked == [{"temperature": 0.7}] * len(seeds)
    assert seeds == [request_seed(5, k) for k in range(first)] + [
        request_seed(6, k) for k in range(len(seeds) - first)
    ]
    assert len(set(seeds)) == len(seeds)  # every request draws its own numbers
    assert sampled.records[0].meta["settings"]["temperature"] == 0.7
    keys = {r.key.options for r in greedy.records}
    assert keys.isdisjoint(r.key.options for r in sampled.records)
    asked.clear()
    again = await evaluate(
        SMALL, factory, arms="none", results=path, limit=1, repeat=3, settings=settings
    )
    assert (again.ran, again.reused) == (1, 2) and asked[0]["seed"] == request_seed(7, 0)
    assert [len(a.paths) for a in again.summary.arms] == [3]


async def test_sampling_a_model_that_cannot_sample_is_refused_before_anything_runs(
    tmp_path: Path,
) -> None:
    path = tmp_path / "r.jsonl"
    with pytest.raises(ConfigurationError, match="needs a model that samples"):
        await evaluate(SMALL, OfflineModel(), results=path, settings=RunSettings(temperature=0.5))
    assert not path.exists() or path.read_text() == ""


def test_greedy_settings_keep_the_keys_stored_results_were_made_with() -> None:
    """Stored results resume only if a greedy run's key is what it was before sampling."""
    none, planner = parse_arms("none,planner")
    greedy = RunSettings(max_steps=20, context_window=8192)
    assert (greedy.digest(none), greedy.digest(planner)) == ("6aeca54397d6", "f93de38f49b9")
    hot, other_seed = (
        RunSettings(20, context_window=8192, temperature=0.7),
        RunSettings(20, context_window=8192, temperature=0.7, seed=1),
    )
    assert len({greedy.digest(none), hot.digest(none), other_seed.digest(none)}) == 3
    assert RunSettings(seed=9).digest(none) == RunSettings().digest(none)  # no sampling


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"temperature": -0.1}, "temperature must be a number from 0 to 2"),
        ({"temperature": 2.5}, "temperature must be a number from 0 to 2"),
        ({"seed": -1}, "seed must be an integer >= 0"),
    ],
)
def test_bad_sampling_settings_are_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        RunSettings(**options)


async def test_rerun_makes_stored_runs_again_and_the_new_ones_count(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    broken = await evaluate(  # the same model name as the reference: the same run keys
        SMALL, lambda m, a: ScriptedModel([], name=REFERENCE), results=path, arms="none"
    )
    assert [a.solved for a in broken.summary.arms] == [0]  # say, a checker with a bug
    kept = await evaluate(SMALL, reference_model, results=path, arms="none")
    assert (kept.ran, kept.reused, kept.summary.arms[0].solved) == (0, 3, 0)  # stored: kept
    again = await evaluate(SMALL, reference_model, results=path, arms="none", rerun=True)
    assert (again.ran, again.reused, again.summary.arms[0].solved) == (3, 0, 3)
    assert len(path.read_text().splitlines()) == 6
    assert [r.solved for r in ResultStore(path).latest()] == [True, True, True]
    with pytest.raises(ConfigurationError, match="rerun must be True or False"):
        await evaluate(SMALL, reference_model, rerun="yes")  # type: ignore[arg-type]
