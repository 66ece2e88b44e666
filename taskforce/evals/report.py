"""The Markdown report, generated from stored results only (regenerating never reruns).

Sections: AT A GLANCE (the current results per arm and their paired comparisons, first,
before any notes), how it was measured (commands, model, settings, machine, commits, dates,
wall time), the BASELINE (a results file named as the baseline), the CURRENT results (per arm,
per mission tag, paired), an ABLATION table (one row per arm of either), and per-mission
tables.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from pathlib import Path

from taskforce.evals.record import RunRecord
from taskforce.evals.summary import ArmSummary, Summary, summarize
from taskforce.plan.text import plural

__all__ = ["render_report"]

_DEFINITIONS = """\
## What the columns mean
- **solved**: the mission's checker read the tools' world (what was saved, sent, written)
  and, where the answer is the product, the number in the answer; 95% Wilson interval.
- **false completions**: runs that ended as finished (status completed with an answer) or
  with every plan step ticked, while the checker says not solved.
- **no-work ticks**: plan steps that need a tool marked done with no successful
  non-planner tool run since the step started (k steps ticked at once after c such runs
  count max(0, k - c); a call that failed is no run: runs made before 2026-11-25 counted
  it as one).
  A step that only reports or decides ("Tell me the result"), or composes a message a later
  step sends, needs none: the agent's own rule (`taskforce.agent.planning.step_needs_tool`)
  decides which steps those are. A repeated call
  answered with the result of an earlier run counts as a run only when that earlier run
  backs no DONE step yet (the model did a later step's call early).
- **crashes**: runs that ended in an error of the model's (a reply the provider could not
  parse, a prompt too big for the window), a crash or the wall-time limit. A run the
  provider itself failed (unreachable, refusing the key or the model) is not judged: the
  evaluation stops there, and the same command resumes it.
- **planning share**: the share of input tokens spent on the planner's tool definition,
  planner calls and results, `[Plan update]` recitations and plan reminders. Each request
  is split with the model's `count_tokens` (tiktoken for litellm models, an estimate for
  other tokenizers) and the share is applied to the provider's reported input tokens.
  With `--exact-tokens` (or stored runs replayed with `--remeasure`) a llama.cpp server
  sizes each request with the model's own chat template and tokenizer, and a part is what
  the request loses without it: exact, and equal to the provider's count.
- **fresh input**: counted where the tokens were counted exactly: a request's tokens past
  the longest prefix it shares with the run's previous request, which a prompt cache
  (llama.cpp's, a provider's prefix cache) still has to process; an ideal cache, one per
  run. Its planning share is what planning adds to it: the fresh input less that of the
  same requests without the planning parts, so a change of the tools offered (the planner
  shown, changed or hidden), which makes the prompt new from the tools on, counts there.
- **paired**: arms compared on the same missions and repeats: both solved / only A /
  only B / neither, the difference in solve rate with a 95% interval (Newcombe), and the
  exact McNemar p-value (two-sided binomial test on the discordant pairs). With several
  repeats a mission's pairs are not independent, so the interval and p-value are too
  narrow: read the per-repeat table (the spread of whole repeats) beside them.
"""


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def _arm_rows(arms: Sequence[ArmSummary], label: str = "") -> list[str]:
    rows = []
    for a in arms:
        per = max(a.runs, 1)
        rows.append(
            f"| {label}{a.suite} | {a.arm} | {a.solved}/{a.runs} ({_pct(a.rate)}, "
            f"{_pct(a.low)}-{_pct(a.high)}) | {a.false_completions} | {a.no_work_ticks} "
            f"({plural(a.runs_with_no_work_ticks, 'run')}) | {a.crashes} | {a.overflows} | "
            f"{a.turns / per:.1f} | {a.input_tokens // per:,} | {_pct(a.planning_share)} | "
            f"{a.seconds / per:.0f} s |"
        )
    return rows


_ARM_HEAD = [
    "| suite | arm | solved (95% CI) | false completions | no-work ticks | crashes | "
    "overflows | turns/run | input tokens/run | planning share | wall/run |",
    "|---|---|---|---|---|---|---|---|---|---|---|",
]


def _fresh(arms: Sequence[ArmSummary]) -> list[str]:
    """What a prompt cache still processes, for the arms whose runs counted it."""
    counted = [(a, a.fresh) for a in arms if a.fresh is not None]
    if not counted:
        return []
    lines = [
        "What a prompt cache still processes (fresh input: each request's tokens past the "
        "prefix it shares with the run's previous request; counted exactly, see the columns' "
        "definitions):",
        "",
        "| suite | arm | runs counted | input tokens/run | fresh input/run | fresh / input | "
        "planning share of fresh input |",
        "|---|---|---|---|---|---|---|",
    ]
    for a, f in counted:
        lines.append(
            f"| {a.suite} | {a.arm} | {f.runs}/{a.runs} | {f.input_a_run:,} | "
            f"{f.fresh_a_run:,} | {_pct(f.fresh_share)} | {_pct(f.planning_share)} |"
        )
    return [*lines, ""]


def _section(title: str, records: Sequence[RunRecord], arm_order: Sequence[str]) -> list[str]:
    if not records:
        return [f"## {title}", "", "Not recorded yet.", ""]
    summary = summarize(records, arm_order)
    lines = [f"## {title}", "", *_facts(records), "", *_ARM_HEAD, *_arm_rows(summary.arms), ""]
    lines += _fresh(summary.arms) + _tags(summary) + _paired(summary) + _paths(summary)
    return lines + _missions(summary)


def _glance(records: Sequence[RunRecord], arm_order: Sequence[str], title: str) -> list[str]:
    """The current results per arm and paired, before the notes (details in `title`)."""
    if not records:
        return []
    summary = summarize(records, arm_order)
    commits = {r.meta["commit"] for r in records if r.meta.get("commit")}
    made = f", made on {plural(len(commits), 'commit')}" if commits else ""
    return [
        "## At a glance",
        "",
        f"The current results ({plural(len(records), 'run')}{made}); how they were "
        f"measured, and the results per mission tag and per mission: {title}, below.",
        "",
        *_ARM_HEAD,
        *_arm_rows(summary.arms),
        "",
        *_fresh(summary.arms),
        *_paired(summary),
    ]


def _tags(summary: Summary) -> list[str]:
    """Solved and false completions per mission tag (multi-step: not tagged single)."""
    arms, rows = summary.tag_rows()
    if not rows:
        return []
    lines = [
        "By mission tag (solved/runs, F = false completions, planning share of input):",
        "",
        "| suite | tag | " + " | ".join(arms) + " |",
        "|---|---|" + "---|" * len(arms),
    ]
    for suite, tag, cells in rows:
        lines.append(f"| {suite} | {tag} | " + " | ".join(cells) + " |")
    return [*lines, ""]


def _spread(values: Sequence[float], unit: str = "%") -> str:
    """Mean, sample standard deviation and range of per-path numbers (fractions)."""
    mean = statistics.fmean(values)
    sd = statistics.stdev(values) if len(values) > 1 else 0.0
    low, high = min(values), max(values)
    return f"{100 * mean:.1f}{unit} (sd {100 * sd:.1f}; {100 * low:.0f} to {100 * high:.0f})"


def _paths(summary: Summary) -> list[str]:
    """Per-repeat numbers, when an arm has several repeats (sampled paths)."""
    if all(len(a.paths) < 2 for a in summary.arms):
        return []
    lines = [
        "Per repeat (with `--temperature` above 0 each repeat is its own sampled path; "
        "mean, sample sd and range over the repeats):",
        "",
        "| suite | arm | repeats | solved per repeat | solve rate | false completions "
        "per repeat | planning share |",
        "|---|---|---|---|---|---|---|",
    ]
    for a in summary.arms:
        solved = ", ".join(f"{p.solved}/{p.runs}" for p in a.paths)
        false = ", ".join(str(p.false_completions) for p in a.paths)
        lines.append(
            f"| {a.suite} | {a.arm} | {len(a.paths)} | {solved} | "
            f"{_spread([p.rate for p in a.paths])} | {false} | "
            f"{_spread([p.planning_share for p in a.paths])} |"
        )
    by_arm = {f"{a.suite}:{a.arm}": {p.repeat: p for p in a.paths} for a in summary.arms}
    for c in summary.comparisons:
        first, second = by_arm.get(c.a, {}), by_arm.get(c.b, {})
        common = [r for r in first if r in second and first[r].runs == second[r].runs]
        if len(common) > 1:
            diffs = [first[r].rate - second[r].rate for r in common]
            each = ", ".join(f"{100 * d:+.0f}" for d in diffs)
            lines.append(f"- {c.a} - {c.b} per repeat: {each} pts; {_spread(diffs, ' pts')}")
    return [*lines, ""]


def _paired(summary: Summary) -> list[str]:
    if not summary.comparisons:
        return []
    lines = [
        "Paired comparisons (A - B on the same missions and repeats):",
        "",
        "| A | B | pairs | both | only A | only B | neither | A - B (95% CI) | McNemar p |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for c in summary.comparisons:
        lines.append(
            f"| {c.a} | {c.b} | {c.n} | {c.both} | {c.only_a} | {c.only_b} | {c.neither} | "
            f"{100 * c.difference:+.0f} pts ({100 * c.low:+.0f} to {100 * c.high:+.0f}) | "
            f"{c.p_value:.3g} |"
        )
    return [*lines, ""]


def _missions(summary: Summary) -> list[str]:
    arms = list(dict.fromkeys(a.arm for a in summary.arms))
    lines = [
        "<details><summary>Per mission (solved/runs; F = false completion; "
        "status of the runs)</summary>",
        "",
        "| mission | " + " | ".join(arms) + " |",
        "|---|" + "---|" * len(arms),
    ]
    for mission, cells in summary.missions.items():
        row = []
        for arm in arms:
            cell = cells.get(arm)
            if cell is None:
                row.append("-")
                continue
            status = ",".join(sorted(set(cell["status"])))
            flag = f" F{cell['false']}" if cell["false"] else ""
            row.append(f"{cell['solved']}/{cell['runs']}{flag} {status}")
        lines.append(f"| {mission} | " + " | ".join(row) + " |")
    return [*lines, "", "</details>", ""]


def _facts(records: Sequence[RunRecord]) -> list[str]:
    def values(key: str) -> str:
        found = dict.fromkeys(
            str(r.meta[key]) for r in records if r.meta.get(key) not in (None, "")
        )
        return ", ".join(f"`{v}`" for v in found) or "not recorded"

    settings = dict.fromkeys(
        ", ".join(f"{k}={v}" for k, v in sorted((r.meta.get("settings") or {}).items()))
        for r in records
    )
    dates = sorted(r.started_at for r in records if r.started_at)
    wall = sum(r.seconds for r in records)
    models = ", ".join(f"`{m}`" for m in dict.fromkeys(r.key.model for r in records))
    return [
        f"- commands: {values('argv')}",
        f"- model: {models}; setup: {values('setup')}; temperature: {values('temperature')}; "
        f"output tokens per reply at most: {values('max_tokens')}",
        f"- limits: {'; '.join(settings) or 'not recorded'}",
        f"- code: commit {values('commit')}; machine: {values('machine')}; "
        f"Python {values('python')}",
        f"- runs: {len(records)}, from {dates[0] if dates else '?'} to "
        f"{dates[-1] if dates else '?'}, wall time of the runs {wall / 3600:.2f} h",
        f"- planning share: {_sizes(records)}",
    ]


def _sizes(records: Sequence[RunRecord]) -> str:
    """How the runs' token splits were sized: exactly, estimated, or some of each."""
    exact = sum(r.tokens.get("sizes") == "exact" for r in records)
    if exact == len(records):
        return "sized exactly in every run (the model's own chat template and tokenizer)"
    if not exact:
        return "estimated in every run (tiktoken, each part on its own)"
    return (
        f"sized exactly in {exact} of {len(records)} runs (the model's own chat template and "
        "tokenizer), estimated in the others (tiktoken): the arms' shares may not compare"
    )


def render_report(
    current: Sequence[RunRecord],
    baseline: Sequence[RunRecord] = (),
    *,
    command: str = "",
    arm_order: Sequence[str] = ("none", "planner"),
    baseline_path: str | Path | None = None,
    current_path: str | Path | None = None,
    notes: str = "",
) -> str:
    """The Markdown report of `baseline` and `current` results (either may be empty).

    The current results come first, at a glance (per arm, and paired); `notes` (Markdown
    written by people: what was changed, which targets are met) follow them. Without a
    baseline (no records, no path) there is no baseline section, and the current results
    are called "Results".
    """
    compared = bool(baseline) or baseline_path is not None
    lines = [
        "# Does planning help? taskforce's agent evaluation",
        "",
        "Generated from stored results by `taskforce eval` (regenerating reruns nothing "
        "that is stored):",
        "",
        "```",
        command or "taskforce eval --report docs/qa/agent-eval.md ...",
        "```",
        "",
        (
            f"Baseline results: `{baseline_path or 'none'}`; current results: "
            f"`{current_path or 'none'}`. "
            if compared
            else f"Results: `{current_path or 'not named'}`. "
        )
        + "Each section lists the commands that made its runs: running one again resumes or "
        "extends it (stored runs are skipped), then this command regenerates the report.",
        "",
    ]
    lines += _glance(current, arm_order, "Current" if compared else "Results")
    if notes.strip():
        lines += [notes.strip(), ""]
    if compared:
        lines += _section("Baseline (before agent changes)", baseline, arm_order)
    lines += _section("Current" if compared else "Results", current, arm_order)
    lines += ["## Ablation (every arm tried)", "", *_ARM_HEAD]
    for label, records in (("baseline: ", baseline), ("current: ", current)):
        if records:
            lines += _arm_rows(summarize(records, arm_order).arms, label)
    lines += ["", _DEFINITIONS]
    return "\n".join(lines)
