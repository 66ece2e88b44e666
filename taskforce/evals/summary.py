"""Aggregates of stored runs: per arm (Wilson intervals), per mission, paired comparisons."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, TypedDict

from taskforce.evals.record import RunRecord, comparable_settings
from taskforce.evals.stats import Paired, paired, wilson

__all__ = ["ArmSummary", "PathSummary", "Summary", "TagSummary", "summarize"]

MULTI_STEP = "multi-step"
"""The group of missions not tagged ``single`` (shown when a suite tags some ``single``)."""


class _Rates:
    """The rates of a group of runs (its fields: runs, solved, input and planning tokens)."""

    runs: int
    solved: int
    input_tokens: int
    planning_tokens: int

    @property
    def rate(self) -> float:
        """Solved / runs."""
        return self.solved / self.runs if self.runs else 0.0

    @property
    def planning_share(self) -> float:
        """Planning input tokens / input tokens."""
        return self.planning_tokens / self.input_tokens if self.input_tokens else 0.0


@dataclass(frozen=True)
class PathSummary(_Rates):
    """One repeat of an arm: its runs of every mission (one path, when runs sample)."""

    repeat: int
    runs: int
    solved: int
    false_completions: int
    input_tokens: int
    planning_tokens: int


@dataclass(frozen=True)
class TagSummary(_Rates):
    """The runs of one arm on the missions of one tag (a mission's ``tags``)."""

    suite: str
    tag: str
    arm: str
    runs: int
    solved: int
    false_completions: int
    input_tokens: int
    planning_tokens: int

    def text(self) -> str:
        """``8/11 F0, 29%``: solved/runs, false completions, planning share (if any)."""
        share = f", {100 * self.planning_share:.0f}%" if self.planning_tokens else ""
        return f"{self.solved}/{self.runs} F{self.false_completions}{share}"


@dataclass(frozen=True)
class Fresh:
    """What a prompt cache still processes, over the runs of an arm that counted it.

    Fresh input: a request's tokens past the longest prefix it shares with the run's
    previous request (:mod:`~taskforce.evals.meter`); planning's part is what planning adds
    to it (its own messages, and the prompt processed again when the tools offered change).
    """

    runs: int
    input_tokens: int
    """The whole input of those runs, as the same exact count sized it."""
    fresh_input: int
    fresh_planning: int

    @property
    def input_a_run(self) -> int:
        """The input of a counted run, on average (whole tokens)."""
        return self.input_tokens // max(self.runs, 1)

    @property
    def fresh_a_run(self) -> int:
        """The fresh input of a counted run, on average (whole tokens)."""
        return self.fresh_input // max(self.runs, 1)

    @property
    def fresh_share(self) -> float:
        """Fresh input / input."""
        return self.fresh_input / self.input_tokens if self.input_tokens else 0.0

    @property
    def planning_share(self) -> float:
        """Planning's part of the fresh input."""
        return self.fresh_planning / self.fresh_input if self.fresh_input else 0.0

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready numbers."""
        return {
            **vars(self),
            "fresh_share": round(self.fresh_share, 4),
            "planning_share": round(self.planning_share, 4),
        }


def _fresh(runs: Sequence[RunRecord]) -> Fresh | None:
    counted = [r for r in runs if "fresh_input" in r.tokens]
    if not counted:
        return None
    return Fresh(
        runs=len(counted),
        input_tokens=sum(int(r.tokens["estimated_input"]) for r in counted),  # exact there
        fresh_input=sum(int(r.tokens["fresh_input"]) for r in counted),
        fresh_planning=sum(int(r.tokens.get("fresh_planning", 0)) for r in counted),
    )


_NESTED = ("paths", "fresh")


@dataclass(frozen=True)
class ArmSummary(_Rates):
    """One arm of one suite: rates with 95% Wilson intervals and token totals."""

    suite: str
    arm: str
    runs: int
    solved: int
    low: float
    high: float
    false_completions: int
    no_work_ticks: int
    runs_with_no_work_ticks: int
    crashes: int
    overflows: int
    turns: int
    input_tokens: int
    output_tokens: int
    planning_tokens: int
    seconds: float
    paths: tuple[PathSummary, ...] = ()
    """Per repeat, in repeat order: the spread of the arm when its repeats sample."""
    fresh: Fresh | None = None
    """The fresh input of the runs that counted it (None: none did)."""

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready numbers."""
        return {
            **{k: getattr(self, k) for k in self.__dataclass_fields__ if k not in _NESTED},
            "rate": round(self.rate, 4),
            "planning_share": round(self.planning_share, 4),
            "fresh": None if self.fresh is None else self.fresh.as_dict(),
            "paths": [
                {**vars(p), "planning_share": round(p.planning_share, 4)} for p in self.paths
            ],
        }


@dataclass(frozen=True)
class Summary:
    """Everything the tables and the report show, computed from records."""

    arms: list[ArmSummary]
    comparisons: list[Paired]
    missions: dict[str, dict[str, dict[str, Any]]]
    """suite/mission -> arm -> {"solved": k, "runs": n, "status": [...], "false": f}."""
    tags: list[TagSummary] = field(default_factory=list)
    """Per suite, tag and arm: ``single`` first, then by name, ``multi-step`` last."""

    def tag_rows(self) -> tuple[list[str], list[tuple[str, str, list[str]]]]:
        """The tag table: its arms, and per (suite, tag) each arm's cell (``-``: no runs)."""
        arms = list(dict.fromkeys(t.arm for t in self.tags))
        rows: dict[tuple[str, str], dict[str, TagSummary]] = {}
        for t in self.tags:
            rows.setdefault((t.suite, t.tag), {})[t.arm] = t
        return arms, [
            (suite, tag, [cells[a].text() if a in cells else "-" for a in arms])
            for (suite, tag), cells in rows.items()
        ]

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready numbers."""
        return {
            "arms": [a.as_dict() for a in self.arms],
            "tags": [{**vars(t), "planning_share": round(t.planning_share, 4)} for t in self.tags],
            "comparisons": [{**vars(c), "n": c.n} for c in self.comparisons],
            "missions": self.missions,
        }


def _arm_summary(suite: str, arm: str, runs: Sequence[RunRecord]) -> ArmSummary:
    solved = sum(r.solved for r in runs)
    low, high = wilson(solved, len(runs))
    return ArmSummary(
        suite=suite, arm=arm, runs=len(runs), solved=solved, low=low, high=high,
        false_completions=sum(r.false_completion for r in runs),
        no_work_ticks=sum(r.no_work_ticks for r in runs),
        runs_with_no_work_ticks=sum(r.no_work_ticks > 0 for r in runs),
        crashes=sum(r.crashed for r in runs),
        overflows=sum(r.overflows for r in runs),
        turns=sum(r.turns for r in runs),
        input_tokens=sum(r.input_tokens for r in runs),
        output_tokens=sum(r.output_tokens for r in runs),
        planning_tokens=sum(r.planning_tokens for r in runs),
        seconds=round(sum(r.seconds for r in runs), 1),
        paths=_paths(runs),
        fresh=_fresh(runs),
    )  # fmt: skip


class _Tally(TypedDict):
    runs: int
    solved: int
    false_completions: int
    input_tokens: int
    planning_tokens: int


def _tally(group: Sequence[RunRecord]) -> _Tally:
    """The counts a path or a tag shows of its runs."""
    return _Tally(
        runs=len(group),
        solved=sum(r.solved for r in group),
        false_completions=sum(r.false_completion for r in group),
        input_tokens=sum(r.input_tokens for r in group),
        planning_tokens=sum(r.planning_tokens for r in group),
    )


def _paths(runs: Sequence[RunRecord]) -> tuple[PathSummary, ...]:
    by_repeat: dict[int, list[RunRecord]] = {}
    for r in runs:
        by_repeat.setdefault(r.key.repeat, []).append(r)
    return tuple(
        PathSummary(repeat=repeat, **_tally(group)) for repeat, group in sorted(by_repeat.items())
    )


def summarize(records: Iterable[RunRecord], arm_order: Sequence[str] = ()) -> Summary:
    """Aggregate `records` per suite and arm; compare every pair of arms of a suite.

    Arms are listed in `arm_order` first, then in the order they were first seen. Runs of
    one arm made under other settings or options (another key, e.g. sampled runs next to
    greedy ones in one results file) are summed apart, the arm named with what differs,
    e.g. ``planner (temperature=0.3, seed=1)``. A comparison pairs runs of the same
    mission and repeat made under the same settings (a run missing in one arm is left out
    of that comparison).
    """
    by_key: dict[tuple[str, str, str], list[RunRecord]] = {}
    for record in records:
        by_key.setdefault((record.key.suite, record.key.arm, record.key.options), []).append(record)
    names = _names(by_key)
    groups: dict[tuple[str, str], list[RunRecord]] = {}
    for key, runs in by_key.items():
        groups[(key[0], names[key])] = runs
    bases = {(k[0], names[k]): k[1] for k in by_key}  # label -> the arm's own name
    rank = {name: i for i, name in enumerate(arm_order)}
    keys = sorted(
        groups, key=lambda k: (k[0], rank.get(bases[k], len(rank)), list(groups).index(k))
    )
    arms = [_arm_summary(suite, arm, groups[(suite, arm)]) for suite, arm in keys]
    comparisons: list[Paired] = []
    for suite in dict.fromkeys(s for s, _ in keys):
        labels = [a for s, a in keys if s == suite]
        for a, b in combinations(labels, 2):
            runs_a, runs_b = groups[(suite, a)], groups[(suite, b)]
            if _setting(runs_a[0]) != _setting(runs_b[0]):
                continue  # other limits or sampling: not a paired comparison
            solved_a = {f"{r.key.mission}#{r.key.repeat}": r.solved for r in runs_a}
            solved_b = {f"{r.key.mission}#{r.key.repeat}": r.solved for r in runs_b}
            comparisons.append(paired(f"{suite}:{b}", f"{suite}:{a}", solved_b, solved_a))
    missions: dict[str, dict[str, dict[str, Any]]] = {}
    for (suite, arm), runs in groups.items():
        for r in runs:
            row = missions.setdefault(f"{suite}/{r.key.mission}", {})
            cell = row.setdefault(arm, {"solved": 0, "runs": 0, "status": [], "false": 0})
            cell["solved"] += r.solved
            cell["runs"] += 1
            cell["false"] += r.false_completion
            cell["status"].append(r.status)
    tags = [t for suite, arm in keys for t in _tag_summaries(suite, arm, groups[(suite, arm)])]
    tags.sort(key=lambda t: (t.suite, t.tag == MULTI_STEP, t.tag != "single", t.tag))  # stable
    return Summary(arms, comparisons, missions, tags)


def tags_of(record: RunRecord) -> list[str]:
    """The mission's tags a run was made with (kept in its meta), as text."""
    tags = record.meta.get("tags")
    return [str(t) for t in tags] if isinstance(tags, list) else []


def _tag_summaries(suite: str, arm: str, runs: Sequence[RunRecord]) -> list[TagSummary]:
    """One arm's runs per tag; with ``single`` among them, also the missions without it."""
    by_tag: dict[str, list[RunRecord]] = {}
    for r in runs:
        for tag in dict.fromkeys(tags_of(r)):
            by_tag.setdefault(tag, []).append(r)
    if "single" in by_tag:
        by_tag[MULTI_STEP] = [r for r in runs if "single" not in tags_of(r)]
    return [
        TagSummary(suite=suite, tag=tag, arm=arm, **_tally(group))
        for tag, group in by_tag.items()
        if group
    ]


def _setting(record: RunRecord) -> str:
    """The run limits and sampling a record was made under (from its meta), as a key."""
    settings = record.meta.get("settings") or {}
    if not isinstance(settings, dict):
        return ""
    return json.dumps(comparable_settings(settings), sort_keys=True, default=str)


def _conditions(record: RunRecord) -> dict[str, Any]:
    """What a run was made under: the arm's options and the settings, by name."""
    arm_options = record.meta.get("arm_options") or {}
    found: dict[str, Any] = dict(arm_options) if isinstance(arm_options, dict) else {}
    settings: dict[str, Any] = json.loads(_setting(record) or "{}")
    settings.setdefault("temperature", 0)  # greedy, named when sampled runs are beside it
    return found | settings


def _names(by_key: dict[tuple[str, str, str], list[RunRecord]]) -> dict[tuple[str, str, str], str]:
    """Each (suite, arm, options) group's arm name; with what differs when an arm has several."""
    names: dict[tuple[str, str, str], str] = {}
    for key in by_key:
        same = [k for k in by_key if k[:2] == key[:2]]
        if len(same) == 1:
            names[key] = key[1]
            continue
        mine = _conditions(by_key[key][0])
        others = [_conditions(by_key[k][0]) for k in same if k != key]
        differ = sorted(k for k in mine.keys() | {k for o in others for k in o}
                        if any(o.get(k) != mine.get(k) for o in others))  # fmt: skip
        shown = ", ".join(f"{k}={mine[k]}" for k in differ if k in mine) or f"options {key[2]}"
        names[key] = f"{key[1]} ({shown})"
    return names
