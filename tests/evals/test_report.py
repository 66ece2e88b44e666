"""The Markdown report: built from stored results only, baseline and current apart."""

from __future__ import annotations

from pathlib import Path

from taskforce.evals import ResultStore, Suite, evaluate, reference_model, render_report
from taskforce.evals.builtin import SUITE
from taskforce.testing import ScriptedModel, reply

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


def test_nothing_recorded_yet() -> None:
    text = render_report([], [])
    assert text.count("Not recorded yet.") == 2
