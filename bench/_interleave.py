"""Interleaved timing: contenders take turns in one process, and ratios are taken per round.

Timing each contender in its own block lets a change of machine load between blocks
decide the comparison (three reruns of the old block-wise planner bench gave
taskforce / LangGraph 0.73, 2.86 and 0.92 at 1,000 steps). Here every round prepares each
contender afresh (untimed), then runs op 1 of every contender, op 2 of every contender,
and so on, alternating the order (A B C, C B A, A B C, ...). Each contender's round
result is the median of its ops in that round; the ratio of two contenders is taken per
round, so both sides of one ratio saw the same load, and the report gives the median and
the interquartile range of those per-round ratios. Absolute times are context only.
"""

from __future__ import annotations

import gc
import statistics
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

Op = Callable[[int], Awaitable[float]]
"""The j-th op of a round; returns the seconds it timed (its own timed section only)."""


@dataclass(frozen=True)
class Contender:
    """One side of a comparison: a fresh start per round, then timed ops."""

    name: str
    prepare: Callable[[], Awaitable[None]]
    op: Op


def quartiles(values: Sequence[float]) -> tuple[float, float, float]:
    """(q1, median, q3) of at least one value."""
    if len(values) == 1:
        return values[0], values[0], values[0]
    q1, q2, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, q2, q3


def ratio_summary(ratios: Sequence[float]) -> dict[str, Any]:
    """Median and interquartile range of per-round ratios, rounded for the report."""
    q1, med, q3 = quartiles(sorted(ratios))
    return {"median": round(med, 3), "q1": round(q1, 3), "q3": round(q3, 3), "rounds": len(ratios)}


async def interleave(
    contenders: Sequence[Contender], rounds: int, ops: int, warmup: int = 1
) -> dict[str, list[float]]:
    """Per-round median seconds of each contender (``warmup`` rounds dropped)."""
    per_round: dict[str, list[float]] = {c.name: [] for c in contenders}
    for r in range(rounds + warmup):
        for contender in contenders:
            await contender.prepare()
        gc.collect()
        times: dict[str, list[float]] = {c.name: [] for c in contenders}
        for j in range(ops):
            order = contenders if (r + j) % 2 == 0 else list(reversed(contenders))
            for contender in order:
                times[contender.name].append(await contender.op(j))
        if r >= warmup:
            for name, samples in times.items():
                per_round[name].append(statistics.median(samples))
    return per_round


def compare(per_round: dict[str, list[float]], base: str) -> dict[str, Any]:
    """``base`` / every other contender, per round; plus each one's median time (ms)."""
    out: dict[str, Any] = {
        "median_ms": {
            name: round(statistics.median(values) * 1000, 3) for name, values in per_round.items()
        },
        "ratios": {},
    }
    mine = per_round[base]
    for name, values in per_round.items():
        if name != base:
            ratios = [a / b for a, b in zip(mine, values, strict=True) if b > 0]
            out["ratios"][name] = ratio_summary(ratios)
    return out


def growth(small: Sequence[float], large: Sequence[float]) -> dict[str, Any]:
    """Large / small per round (the same rounds index both: run them interleaved)."""
    return ratio_summary([b / a for a, b in zip(small, large, strict=True) if a > 0])
