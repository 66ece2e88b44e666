"""Interleaved timing: contenders take turns in one process, and ratios are taken per round.

Timing each contender in its own block lets a change of machine load between blocks
decide the comparison (three reruns of the old block-wise planner bench gave
taskforce / LangGraph 0.73, 2.86 and 0.92 at 1,000 steps). Here every round prepares each
contender afresh (untimed), then runs op 1 of every contender, op 2 of every contender,
and so on, each pass in a fresh random order (seeded, so a rerun takes the same orders).
A fixed order (A B C, C B A, ...) puts the same neighbours before a contender in every
round, and a neighbour moves the next op: the origin truncates and rewrites its file, and
the next fsync on the disk pays for part of that (a raw SQLite commit measured 107 us
alone, 149 us right after a 3 KB file rewrite, 176 us after a 2.4 MB one); an op right
after one of its own finds its code and data still in the CPU caches. With a random order
every contender follows every other about equally often; ``after`` collects each op's
time by its predecessor, so the origin's effect is reported rather than hidden. Each
contender's round result is the median of its ops in that round; the ratio of two
contenders is taken per round, so both sides of one ratio saw the same load, and the
report gives the median and the interquartile range of those per-round ratios. Absolute
times are context only.
"""

from __future__ import annotations

import gc
import random
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
    contenders: Sequence[Contender],
    rounds: int,
    ops: int,
    warmup: int = 1,
    *,
    seed: int = 0,
    after: dict[tuple[str, str], list[float]] | None = None,
) -> dict[str, list[float]]:
    """Per-round median seconds of each contender (``warmup`` rounds dropped).

    Each pass takes the contenders in a fresh order drawn from ``random.Random(seed)``.
    ``after``: filled with every timed op's seconds under (its name, the name of the op
    that ran just before it; "" for the first of a round).
    """
    rng = random.Random(seed)
    per_round: dict[str, list[float]] = {c.name: [] for c in contenders}
    for r in range(rounds + warmup):
        for contender in contenders:
            await contender.prepare()
        gc.collect()
        times: dict[str, list[float]] = {c.name: [] for c in contenders}
        previous = ""
        for j in range(ops):
            for contender in rng.sample(list(contenders), len(contenders)):
                seconds = await contender.op(j)
                times[contender.name].append(seconds)
                if after is not None and r >= warmup:
                    after.setdefault((contender.name, previous), []).append(seconds)
                previous = contender.name
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
    for name, values in per_round.items():
        if name != base:
            out["ratios"][name] = ratio_of(per_round[base], values)
    return out


def ratio_of(top: Sequence[float], bottom: Sequence[float]) -> dict[str, Any]:
    """Top / bottom, round by round (the same rounds index both: run them interleaved)."""
    return ratio_summary([a / b for a, b in zip(top, bottom, strict=True) if b > 0])


def growth(small: Sequence[float], large: Sequence[float]) -> dict[str, Any]:
    """Large / small per round (the same rounds index both: run them interleaved)."""
    return ratio_of(large, small)


def neighbours(after: dict[tuple[str, str], list[float]], cause: str) -> dict[str, Any]:
    """Each contender's median ms right after an op whose name starts with ``cause``, and
    after any other op (from :func:`interleave`'s ``after``); contenders named ``cause…``
    are left out."""
    split: dict[str, tuple[list[float], list[float]]] = {}
    for (name, previous), seconds in after.items():
        if name.startswith(cause):
            continue
        hit, rest = split.setdefault(name, ([], []))
        (hit if previous.startswith(cause) else rest).extend(seconds)
    return {
        name: {
            "after_ms": round(statistics.median(hit) * 1000, 3) if hit else None,
            "otherwise_ms": round(statistics.median(rest) * 1000, 3) if rest else None,
            "ops_after": len(hit),
            "ops_otherwise": len(rest),
        }
        for name, (hit, rest) in sorted(split.items())
    }
