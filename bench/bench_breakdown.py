"""Where a durable ``mark_done`` spends its time (SQLite, one session), next to the origin's write.

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

Prints one JSON object: each part's median ms over the rounds, and the rounds' load.

    .venv/bin/python bench/bench_breakdown.py /tmp/work [--rounds 60] [--steps 10]
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
from bench._common import run
from bench._interleave import Contender, interleave
from bench.bench_planner import Taskforce
from bench.peers import OriginPeer
from taskforce.store import StateManager

OPS = 10


async def main() -> dict[str, Any]:
    parser = argparse.ArgumentParser()
    parser.add_argument("workdir", type=Path)
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--steps", type=int, default=10)
    args = parser.parse_args()
    n = args.steps
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


if __name__ == "__main__":
    run(main)
