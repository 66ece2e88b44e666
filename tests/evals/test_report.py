"""The Markdown report: built from stored results only, baseline and current apart."""

from __future__ import annotations

from pathlib import Path

from taskforce.evals import (
    Arm,
    Mission,
    ResultStore,
    RunSettings,
    Suite,
    evaluate,
    reference_model,
    render_report,
    summarize,
)
from taskforce.evals.builtin import SUITE
from taskforce.models.base import Model
from taskforce.testing import ScriptedModel, reply
from tests.evals.helpers import PrefixWordCounter, Sampler, WordCounter

SMALL = Suite("small", SUITE.missions[:2])


async def test_baseline_current_and_ablation(tmp_path: Path) -> None:
    base, now = tmp_path / "base.jsonl", tmp_path / "now.jsonl"
    await evaluate(SMALL, lambda m, a: ScriptedModel([reply("no idea")]), results=base,
                   meta={"setup": "scripted", "max_tokens": 1024})  # fmt: skip
    await evaluate(SMALL, reference_model, arms="none,planner,strict=planner+"
                   "require_work_before_done=true", results=now)  # fmt: skip
    text = render_report(
        ResultStore(now).latest(), ResultStore(base).latest(), command="taskforce eval ...",
        baseline_path=base, current_path=now,
    )  # fmt: skip
    baseline = text[text.index("## Baseline") : text.index("## Current")]
    current = text[text.index("## Current") : text.index("## Ablation")]
    ablation = text[text.index("## Ablation") :]
    assert "| small | none | 0/2 (0%, 0%-66%) | 2 |" in baseline  # 2 false completions
    assert "| 2 | 0 (0 runs) |" in baseline  # no-work ticks, and the runs they were in
    assert "setup: `scripted`" in baseline and "per reply at most: `1024`" in baseline
    assert "per reply at most: not recorded" in current
    assert "| small | planner | 2/2 (100%" in current and "strict" in current
    assert "small:planner | small:none | 2 | 2 | 0 | 0 | 0 |" in current
    assert ablation.count("| baseline: small |") == 2 and ablation.count("| current: small |") == 3
    assert "weather-lisbon" in current and "McNemar" in text
    assert "Per repeat" not in text  # one repeat each: no spread to show


def test_nothing_recorded_yet() -> None:
    text = render_report([], [], baseline_path="base.jsonl")
    assert text.count("Not recorded yet.") == 2
    alone = render_report([], [])  # a user's own suite, no baseline: no baseline section
    assert alone.count("Not recorded yet.") == 1 and "Baseline" not in alone
    assert "## Results" in alone and "Results: `not named`" in alone


async def test_repeats_show_their_spread(tmp_path: Path) -> None:
    made: list[str] = []

    def factory(mission: Mission, arm: Arm) -> Model:  # runs go repeat by repeat
        made.append(arm.name)
        if len(made) > 4 and arm.name == "planner":  # the planner's second repeat fails
            return ScriptedModel([reply("no idea")])
        return reference_model(mission, arm)

    path = tmp_path / "r.jsonl"
    result = await evaluate(SMALL, factory, results=path, repeat=2)
    assert [[p.solved for p in a.paths] for a in result.summary.arms] == [[2, 2], [2, 0]]
    text = render_report(ResultStore(path).latest())
    current = text[text.index("## Results") : text.index("## Ablation")]
    assert "| small | none | 2 | 2/2, 2/2 | 100.0% (sd 0.0; 100 to 100) | 0, 0 |" in current
    assert "| small | planner | 2 | 2/2, 0/2 | 50.0% (sd 70.7; 0 to 100) | 0, 2 |" in current
    assert "- small:planner - small:none per repeat: +0, -100 pts; -50.0 pts" in current
    assert "| small | planner | 2/4 (50%" in current  # the pooled row: every run counts


async def test_runs_under_other_settings_are_summed_apart_and_not_paired(tmp_path: Path) -> None:
    """Sampled runs stored beside greedy ones: four rows, two comparisons, no pooling."""
    path = tmp_path / "r.jsonl"
    await evaluate(SMALL, reference_model, results=path)
    sampled = RunSettings(temperature=0.7, seed=2)
    await evaluate(SMALL, lambda m, a: Sampler(reference_model(m, a)), results=path,
                   settings=sampled)  # fmt: skip
    summary = summarize(ResultStore(path).latest(), ("none", "planner"))
    assert [(a.arm, a.runs) for a in summary.arms] == [
        ("none (temperature=0)", 2), ("none (seed=2, temperature=0.7)", 2),
        ("planner (temperature=0)", 2), ("planner (seed=2, temperature=0.7)", 2),
    ]  # fmt: skip
    assert sorted((c.a, c.b) for c in summary.comparisons) == [
        ("small:planner (seed=2, temperature=0.7)", "small:none (seed=2, temperature=0.7)"),
        ("small:planner (temperature=0)", "small:none (temperature=0)"),
    ]
    alone = summarize([r for r in ResultStore(path).latest() if not r.meta["settings"]["seed"]])
    assert [a.arm for a in alone.arms] == ["none", "planner"]  # one setting: plain names


async def test_solved_per_mission_tag(tmp_path: Path) -> None:
    single, chain = SUITE.missions[0], next(m for m in SUITE.missions if "chain" in m.tags)
    untagged = Mission("untagged", chain.text, chain.world, chain.check, chain.reference)
    suite = Suite("tagged", (single, chain, untagged))

    def factory(mission: Mission, arm: Arm) -> Model:  # the plain loop fails the chain
        if arm.name == "none" and mission.id == chain.id:
            return ScriptedModel([reply("Done.")])
        return reference_model(mission, arm)

    path = tmp_path / "r.jsonl"
    result = await evaluate(suite, factory, results=path)
    rows = {(t.tag, t.arm): (t.solved, t.runs, t.false_completions) for t in result.summary.tags}
    assert rows == {
        ("single", "none"): (1, 1, 0), ("single", "planner"): (1, 1, 0),
        ("chain", "none"): (0, 1, 1), ("chain", "planner"): (1, 1, 0),
        ("multi-step", "none"): (1, 2, 1), ("multi-step", "planner"): (2, 2, 0),
    }  # fmt: skip
    text = render_report(ResultStore(path).latest())
    assert "| suite | tag | none | planner |" in text
    assert "| tagged | chain | 0/1 F1 | 1/1 F0, " in text  # the planner's share follows
    assert "| tagged | multi-step | 1/2 F1 | 2/2 F0, " in text
    assert result.summary.as_dict()["tags"][0]["tag"] == "single"
    assert summarize(ResultStore(path).latest()).tags == result.summary.tags  # from the file


async def test_the_current_results_come_first_then_the_notes(tmp_path: Path) -> None:
    """A reader sees the result before any history: the arms and their pairing, then notes."""
    path = tmp_path / "r.jsonl"
    await evaluate(SMALL, reference_model, results=path, meta={"commit": "abc123"})
    notes = "## Session 9: a long history of what was tried"
    text = render_report(ResultStore(path).latest(), notes=notes, baseline_path="b.jsonl")
    glance = text[text.index("## At a glance") : text.index(notes)]
    assert "(4 runs, made on 1 commit)" in glance
    assert "| small | planner | 2/2 (100%" in glance and "| small | none | 2/2 (100%" in glance
    assert "small:planner | small:none | 2 | 2 | 0 | 0 | 0 |" in glance  # paired
    assert text.index(notes) < text.index("## Baseline") < text.index("## Current")
    assert "## At a glance" not in render_report([], [])  # nothing to glance at


async def test_the_fresh_input_is_shown_where_the_runs_counted_it(tmp_path: Path) -> None:
    counted, sized = tmp_path / "counted.jsonl", tmp_path / "sized.jsonl"
    await evaluate(SMALL, reference_model, results=counted, counter=PrefixWordCounter())
    await evaluate(SMALL, reference_model, results=sized, counter=WordCounter())
    runs = ResultStore(counted).latest()
    planner = next(a for a in summarize(runs).arms if a.arm == "planner")
    fresh = planner.fresh
    assert fresh is not None and fresh.runs == 2
    assert fresh.fresh_input == sum(r.tokens["fresh_input"] for r in runs if r.key.arm == "planner")
    assert 0 < fresh.fresh_input < fresh.input_tokens  # the prefix of each request is shared
    text = render_report(runs, current_path=counted)
    row = (
        f"| small | planner | 2/2 | {fresh.input_tokens // 2:,} | {fresh.fresh_input // 2:,} | "
        f"{100 * fresh.fresh_share:.0f}% | {100 * fresh.planning_share:.0f}% |"
    )
    assert "What a prompt cache still processes" in text and row in text
    assert summarize(runs).as_dict()["arms"][1]["fresh"]["runs"] == 2
    plain = render_report(ResultStore(sized).latest(), current_path=sized)
    assert "What a prompt cache still processes" not in plain
