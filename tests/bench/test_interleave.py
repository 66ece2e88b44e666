"""The interleaving itself: every pass in a fresh seeded order, each op filed by its
predecessor, and the effect of one kind of neighbour summarised."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _contenders(names: list[str], log: list[str]) -> list[Any]:
    from bench._interleave import Contender

    async def prepare() -> None:
        return None

    def op_of(name: str) -> Callable[[int], Awaitable[float]]:
        async def op(j: int) -> float:
            log.append(name)
            return 0.002 if log[-2:-1] == ["origin_write@1"] else 0.001

        return op

    return [Contender(name, prepare, op_of(name)) for name in names]


def test_passes_take_fresh_seeded_orders_and_ops_are_filed_by_their_predecessor(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.syspath_prepend(str(ROOT))
    from bench._interleave import interleave, neighbours

    names = ["taskforce@1", "origin_write@1", "peer@1", "other@1"]
    log: list[str] = []
    after: dict[tuple[str, str], list[float]] = {}
    per_round = asyncio.run(interleave(_contenders(names, log), 3, 5, warmup=1, after=after))
    assert {k: len(v) for k, v in per_round.items()} == dict.fromkeys(names, 3)
    passes = [tuple(log[i : i + 4]) for i in range(0, len(log), 4)]
    assert all(sorted(p) == sorted(names) for p in passes) and len(passes) == 20
    assert len(set(passes)) > 3  # not one order and its reverse
    again: list[str] = []
    asyncio.run(interleave(_contenders(names, again), 3, 5, warmup=1))
    assert again == log  # seeded: a rerun takes the same orders
    assert sum(len(v) for v in after.values()) == 3 * 5 * 4  # the warm-up round is not filed
    followed = {prev for (name, prev) in after if name == "taskforce@1"}
    assert {"origin_write@1", "peer@1", "other@1"} <= followed
    summary = neighbours(after, "origin_")
    assert "origin_write@1" not in summary
    assert summary["taskforce@1"]["after_ms"] == 2.0
    assert summary["taskforce@1"]["otherwise_ms"] == 1.0
    counted = summary["taskforce@1"]["ops_after"] + summary["taskforce@1"]["ops_otherwise"]
    assert counted == 15
