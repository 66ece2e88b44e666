"""Planner action cost against the peers, every comparison interleaved in one process.

    python bench/bench_planner.py WORKDIR [--pg URL] [--rounds N] [--quick] [--in-memory-only]

* durable: ``mark_done`` on a ``PlannerTool`` bound to a ``StateManager`` session (SQLite
  file, WAL, ``synchronous=FULL``; PostgreSQL with ``--pg``), the call returning after its
  commit, against each peer of ``bench/peers.py``: its write alone, and its write with its
  own natural planner. All sizes (10, 100, 1,000 steps) and all contenders take turns in
  the same rounds, so the growth 1,000 / 10 is a per-round ratio too;
* in memory: ``mark_done`` on an unbound ``PlannerTool`` against the origin's dict-list
  planner, at 20 and 1,000 steps.

Each round starts every contender on a fresh plan (untimed), then times ``OPS`` actions
(steps 1..OPS marked done) per contender, interleaved (a fresh seeded order per pass, see
``bench/_interleave.py``). Prints one JSON object: per-round ratios (median, quartiles),
median times (ms, context), each contender's median right after an origin file write and
otherwise, pragmas and bytes on disk.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import PgDatabase, run
from bench._interleave import Contender, compare, growth, interleave, neighbours
from bench.peers import PEERS, OriginPlanner, Peer, make_peer, tasks
from taskforce.store import StateManager
from taskforce.tools.base import tool_spec_size
from taskforce.tools.planner import PlannerTool

SIZES = (10, 100, 1000)
OPS = 10


class Taskforce:
    """A PlannerTool on a fresh n-step plan per round: bound to a fresh session of `sm`, or
    unbound (in memory) when `sm` is None."""

    def __init__(self, sm: StateManager | None, n: int) -> None:
        self.sm, self.n = sm, n
        self.tool = PlannerTool()

    async def prepare(self) -> None:
        if self.sm is None:
            self.tool = PlannerTool()
        else:
            session_id = f"b{self.n}-{uuid.uuid4().hex}"
            self.tool = PlannerTool(state_manager=self.sm, session_id=session_id)
        created = await self.tool.execute(action="create_plan", tasks=tasks(self.n))
        assert created["success"], created

    async def op(self, j: int) -> float:
        start = time.perf_counter()
        result = await self.tool.execute(action="mark_done", step_index=[j % self.n + 1])
        elapsed = time.perf_counter() - start
        assert result["success"], result
        return elapsed


class Origin:
    """The origin's dict-list planner (``peers.OriginPlanner``), on a fresh plan per round."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.plan = OriginPlanner(tasks(n))

    async def prepare(self) -> None:
        self.plan = OriginPlanner(tasks(self.n))

    async def op(self, j: int) -> float:
        start = time.perf_counter()
        result = await self.plan.execute("mark_done", step_index=j % self.n + 1)
        elapsed = time.perf_counter() - start
        assert result["success"], result
        return elapsed


def _peer_contenders(peer: Peer, mode: str, n: int) -> Contender:
    async def prepare() -> None:
        await peer.prepare(n)

    return Contender(f"{peer.name}_{mode}@{n}", prepare, getattr(peer, mode))


async def durable(
    backend: str,
    urls: dict[int, str],
    workdir: Path,
    pg: str | None,
    rounds: int,
    sizes: tuple[int, ...],
) -> dict[str, Any]:
    """taskforce vs each peer (write alone, and with its planner), all sizes interleaved."""
    managers = {n: StateManager(url) for n, url in urls.items()}
    contenders: list[Contender] = []
    peers: list[Peer] = []
    errors: dict[str, str] = {}
    names = PEERS if backend == "sqlite" else ("openai_agents",)
    for n in sizes:
        tf = Taskforce(managers[n], n)
        contenders.append(Contender(f"taskforce@{n}", tf.prepare, tf.op))
        for name in names:
            for mode in ("write", "planner"):
                try:
                    peer = make_peer(name, workdir / backend / f"{name}-{mode}-{n}", pg)
                except ImportError as exc:
                    errors[name] = f"not installed: {exc}"
                    continue
                peers.append(peer)
                contenders.append(_peer_contenders(peer, mode, n))
    out: dict[str, Any] = {}
    try:
        after: dict[tuple[str, str], list[float]] = {}
        per_round = await interleave(contenders, rounds, OPS, after=after)
        out = {"sizes": {}, "not_measured": errors, "pragmas": {}, "versions": {}}
        out["after_origin_write"] = neighbours(after, "origin_")
        for n in sizes:
            mine = {k: v for k, v in per_round.items() if k.endswith(f"@{n}")}
            out["sizes"][str(n)] = compare(
                {k.rsplit("@", 1)[0]: v for k, v in mine.items()}, "taskforce"
            )
        out["growth_1000_vs_10"] = {
            name.rsplit("@", 1)[0]: growth(per_round[name], per_round[name.replace("@10", "@1000")])
            for name in per_round
            if name.endswith("@10") and name.replace("@10", "@1000") in per_round
        }
        for peer in peers:
            out["pragmas"][peer.name] = await peer.pragmas()
            out["versions"][peer.name] = peer.version
        out["pragmas"]["taskforce"] = await _taskforce_pragmas(managers[sizes[0]])
    finally:
        for peer in peers:
            try:
                await peer.close()
            except Exception as exc:  # a peer failing to close must not hide the figures
                errors[peer.name] = f"close failed: {exc}"
        for sm in managers.values():
            await sm.close()
    out["disk_bytes"] = _disk(backend, urls, peers)
    return out


def _bytes(files: list[Path]) -> int:
    """Bytes of these files, SQLite databases checkpointed first (WAL folded in)."""
    for path in files:
        if path.suffix == ".db":
            conn = sqlite3.connect(path)
            try:
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                conn.close()
    parts = [part for path in files for part in [path, *path.parent.glob(path.name + "-*")]]
    return sum(part.stat().st_size for part in parts)


def _disk(backend: str, urls: dict[int, str], peers: list[Peer]) -> dict[str, int]:
    """Bytes on disk after the same rounds (planner mode), per contender and size."""
    if backend != "sqlite":
        return {}
    out: dict[str, int] = {}
    for n, url in urls.items():
        out[f"taskforce@{n}"] = _bytes([Path(url.split("///", 1)[1])])
    for peer in peers:
        if "-planner-" in peer.dir.parent.name:
            files = [p for p in peer.dir.rglob("*") if p.is_file() and "-" not in p.suffix]
            out[f"{peer.name}@{peer.n}"] = _bytes(files)
    return out


async def _taskforce_pragmas(sm: StateManager) -> dict[str, Any]:
    from sqlalchemy import text

    async with sm.engine.connect() as conn:
        if sm.engine.dialect.name == "sqlite":
            mode = (await conn.execute(text("PRAGMA journal_mode"))).scalar()
            sync = (await conn.execute(text("PRAGMA synchronous"))).scalar()
            names = {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}
            return {"journal_mode": mode, "synchronous": names.get(sync, sync)}
        value = (await conn.execute(text("SHOW synchronous_commit"))).scalar()
        return {"synchronous_commit": value}


async def in_memory(rounds: int, sizes: tuple[int, ...]) -> dict[str, Any]:
    """Unbound PlannerTool vs the origin's dict-list planner (no store on either side)."""
    contenders: list[Contender] = []
    for n in sizes:
        tool, origin = Taskforce(None, n), Origin(n)
        contenders.append(Contender(f"taskforce@{n}", tool.prepare, tool.op))
        contenders.append(Contender(f"origin@{n}", origin.prepare, origin.op))
    per_round = await interleave(contenders, rounds, OPS)
    return {
        str(n): compare(
            {k.rsplit("@", 1)[0]: v for k, v in per_round.items() if k.endswith(f"@{n}")},
            "taskforce",
        )
        for n in sizes
    }


async def main() -> dict[str, Any]:
    parser = argparse.ArgumentParser()
    parser.add_argument("workdir", type=Path)
    parser.add_argument("--pg", default=None)
    parser.add_argument("--rounds", type=int, default=None, help="default 60 (quick: 5)")
    parser.add_argument("--quick", action="store_true", help="few rounds, 10 and 100 steps")
    parser.add_argument("--in-memory-only", action="store_true", help="skip the durable part")
    args = parser.parse_args()
    rounds = args.rounds or (5 if args.quick else 60)
    sizes = (10, 100) if args.quick else SIZES
    workdir: Path = args.workdir / f"planner-{uuid.uuid4().hex[:6]}"
    workdir.mkdir(parents=True, exist_ok=True)  # noqa: ASYNC240
    out: dict[str, Any] = {
        "rounds": rounds,
        "ops_per_round": OPS,
        "sizes": list(sizes),
        "tool_spec_size_chars": tool_spec_size(PlannerTool()),
        "in_memory": await in_memory(rounds, (20, 1000) if not args.quick else (20,)),
    }
    if args.in_memory_only:
        return out
    sqlite_urls = {n: f"sqlite+aiosqlite:///{workdir / f'taskforce-{n}.db'}" for n in sizes}
    out["durable"] = {"sqlite": await durable("sqlite", sqlite_urls, workdir, None, rounds, sizes)}
    if args.pg:
        pg = PgDatabase(args.pg)
        url = await pg.create()
        try:
            out["durable"]["postgresql"] = await durable(
                "postgresql", dict.fromkeys(sizes, url), workdir, url, rounds, sizes
            )
        finally:
            await pg.drop()
    return out


if __name__ == "__main__":
    run(main)
