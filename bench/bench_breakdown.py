"""Where a ``mark_done`` spends its time, durable (SQLite) or in memory, next to the origin.

A diagnostic, not a comparison with peers (that is ``bench_planner.py``): it says which part
of taskforce's time a change could win back. One process; per round every contender starts
on a fresh plan (untimed), then their ops take turns in a random order (``_interleave``).

- ``taskforce``: ``PlannerTool.execute(mark_done)`` bound to a ``StateManager`` on an SQLite
  file (WAL, synchronous=FULL). Its time is split, op by op, at the edges of the one call
  that runs in the connection's thread (``_tx.run_sqlite`` as ``_runner`` calls it, patched
  to note the time on entry and exit): ``before`` (decode, apply, encode, up to the
  hand-over), ``in thread`` (BEGIN IMMEDIATE .. COMMIT with its fsync, and the statements'
  own Python), ``after`` (the hand-back to the event loop, cache, result).
- ``hop``: one empty call through an aiosqlite connection's thread (the hand-over and back).
- ``origin save``: the origin's file save (indent=2 JSON, one fsync of the file, through
  ``asyncio.to_thread``, as the origin does: ``peers.OriginPeer``, the write alone, as in
  ``bench_planner.py``), and ``origin write``: the same save run inline.

With ``--in-memory`` (no store on either side; ``--steps`` defaults to 20 there, the
in-memory target's size): an unbound ``PlannerTool.execute(mark_done)`` and each of its
parts, every one a contender of its own timed alone (``decode``: the arguments checked and
parsed, ``PlannerTool.decode``; ``apply``: the plan's rules applied, ``PlannerTool.change``;
``result``: the tool result with its rendered checklist, ``PlanChange.result``), each then
advancing its tool's plan untimed, against the origin's whole ``mark_done``
(``peers.OriginPlanner``, as ``bench_planner.py`` times it). Ratios are per round, part ÷
the origin's whole call (median and interquartile range): how much of the in-memory
target's budget (1.5x the origin) one part alone takes.

Prints one JSON object: each part's median ms over the rounds (and, in memory, its ratio
to the origin), and the rounds' load.

    .venv/bin/python bench/bench_breakdown.py /tmp/work [--rounds 60] [--steps 10]
    .venv/bin/python bench/bench_breakdown.py /tmp/work --in-memory [--rounds 60]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import aiosqlite

import taskforce.store._runner as runner_module
from bench._common import median_ms, run
from bench._interleave import Contender, interleave, ratio_of
from bench.bench_planner import Origin, Taskforce
from bench.peers import OriginPeer
from taskforce.store import StateManager

OPS = 10


async def main() -> dict[str, Any]:
    parser = argparse.ArgumentParser()
    parser.add_argument("workdir", type=Path)
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--steps", type=int)
    parser.add_argument("--in-memory", action="store_true")
    args = parser.parse_args()
    if args.in_memory:
        return await in_memory(args.rounds, args.steps or 20)
    n = args.steps or 10
    workdir: Path = args.workdir / f"breakdown-{uuid.uuid4().hex[:6]}"
    workdir.mkdir(parents=True, exist_ok=True)  # noqa: ASYNC240

    marks: dict[str, float] = {}
    parts: dict[str, list[float]] = {"before": [], "in thread": [], "after": []}
    inner = runner_module.run_sqlite

    def noted(*a: Any, **k: Any) -> Any:
        marks["in"] = time.perf_counter()
        try:
            return inner(*a, **k)
        finally:
            marks["out"] = time.perf_counter()

    runner_module.run_sqlite = noted  # type: ignore[assignment]
    store = StateManager(f"sqlite+aiosqlite:///{workdir / 'tf.db'}")
    bound = Taskforce(store, n)  # bench_planner's contender: a fresh session per round

    async def tf_op(j: int) -> float:
        elapsed = await bound.op(j)
        end = time.perf_counter()
        parts["before"].append(marks["in"] - (end - elapsed))
        parts["in thread"].append(marks["out"] - marks["in"])
        parts["after"].append(end - marks["out"])
        return elapsed

    hop_db = await aiosqlite.connect(str(workdir / "hop.db"))

    async def hop_op(j: int) -> float:
        start = time.perf_counter()
        await hop_db._execute(lambda: None)  # the thread hand-over alone, there and back
        return time.perf_counter() - start

    def origin_side(threaded: bool) -> Contender:
        """The origin's save (``peers.OriginPeer``): timed alone, through to_thread or inline."""
        peer = OriginPeer(workdir / ("origin-save" if threaded else "origin-write"))

        async def prepare() -> None:
            await peer.prepare(n)

        async def inline(j: int) -> float:
            peer.plan.mark_done(j % n + 1)
            state = peer.plan.get_state()
            start = time.perf_counter()
            peer.save(state)
            return time.perf_counter() - start

        if threaded:
            return Contender("origin save", prepare, peer.write)
        return Contender("origin write", prepare, inline)

    async def nothing() -> None:
        return None

    load_before = os.getloadavg()
    per_round = await interleave(
        [
            Contender("taskforce", bound.prepare, tf_op),
            Contender("hop", nothing, hop_op),
            origin_side(threaded=False),
            origin_side(threaded=True),
        ],
        args.rounds,
        OPS,
    )
    load_after = os.getloadavg()
    await hop_db.close()
    await store.close()
    runner_module.run_sqlite = inner  # type: ignore[assignment]
    kept = args.rounds * OPS  # the warm-up round's ops are the first ones noted
    return {
        "steps": n,
        "rounds": args.rounds,
        "ops_per_round": OPS,
        "median_ms": {
            **{name: round(statistics.median(v) * 1000, 3) for name, v in per_round.items()},
            **{
                f"taskforce {name}": round(statistics.median(v[-kept:]) * 1000, 3)
                for name, v in parts.items()
            },
        },
        "loadavg_before": [round(x, 2) for x in load_before],
        "loadavg_after": [round(x, 2) for x in load_after],
    }


def _part(name: str, n: int) -> Contender:
    """One part of an unbound ``mark_done``, timed alone (see the module docstring).

    Each op times its part, then runs the whole call untimed so the tool's plan moves on
    as in ``bench_planner.py`` (a fresh plan per round, steps 1, 2, ... marked done).
    """
    unbound = Taskforce(None, n)

    async def op(j: int) -> float:
        tool, params = unbound.tool, {"action": "mark_done", "step_index": [j % n + 1]}
        start = time.perf_counter()
        request = tool.decode(params)
        if name == "apply":
            start = time.perf_counter()
        change = tool.change(request) if name != "decode" else None
        if name == "result":
            assert change is not None
            start = time.perf_counter()
            change.result()
        elapsed = time.perf_counter() - start
        result, _ = await tool.run(request)  # untimed: the plan moves on
        assert result["success"], result
        return elapsed

    return Contender(name, unbound.prepare, op)


async def in_memory(rounds: int, n: int) -> dict[str, Any]:
    """The in-memory split (see the module docstring): parts and ratios to the origin."""
    whole, origin = Taskforce(None, n), Origin(n)
    load_before = os.getloadavg()
    per_round = await interleave(
        [
            Contender("origin", origin.prepare, origin.op),
            Contender("taskforce", whole.prepare, whole.op),
            *(_part(name, n) for name in ("decode", "apply", "result")),
        ],
        rounds,
        OPS,
    )
    load_after = os.getloadavg()
    return {
        "steps": n,
        "rounds": rounds,
        "ops_per_round": OPS,
        "median_ms": {name: median_ms(times) for name, times in per_round.items()},
        "ratio_to_origin": {  # per round, part ÷ the origin's whole call
            name: ratio_of(times, per_round["origin"])
            for name, times in per_round.items()
            if name != "origin"
        },
        "loadavg_before": [round(x, 2) for x in load_before],
        "loadavg_after": [round(x, 2) for x in load_after],
    }


if __name__ == "__main__":
    run(main)
