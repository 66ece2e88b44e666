"""Scale: 100,000 sessions in one database, and one session with 100,000 history entries.

    python bench/bench_scale.py WORKDIR [--samples N]

* Listing the newest 50 sessions and opening one (``load_state``), through the
  ``StateManager`` and through the CLI's read-only path, with 1k, 10k and 100k sessions
  in the database. Flat means the 100k/1k ratio stays near 1.
* One session with 100,000 messages and 100,000 history entries: resuming it with a
  ``LeanAgent`` (scripted model) in a fresh process, its time and peak RSS, against the
  same resume of a 4-message session, and against loading the whole message log.

The database is left at ``WORKDIR/scale.db`` for ``bench_cli.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import _dataset as ds
from bench._common import ratio, run, run_child, summary, time_async
from taskforce.store import StateManager
from taskforce.store.readonly import read_sessions, read_state

COUNTS = (1_000, 10_000, 100_000)
BIG_ENTRIES = 100_000


async def at_count(url: str, count: int, samples: int) -> dict[str, Any]:
    rng = random.Random(count)
    ids = [f"s{rng.randrange(count - 1):07d}" for _ in range(samples + 3)]
    picks = iter(ids * 4)
    async with StateManager(url) as sm:

        async def listing() -> None:
            rows = await sm.list_sessions(50)
            assert len(rows) == 50

        async def opening() -> None:
            assert await sm.load_state(next(picks)) is not None

        async def ro_listing() -> None:
            assert len(read_sessions(url, 50)) == 50

        async def ro_opening() -> None:
            assert read_state(url, next(picks)) is not None

        return {
            "list_newest_50": summary(await time_async(listing, samples)),
            "open_one": summary(await time_async(opening, samples)),
            "readonly_list_newest_50": summary(await time_async(ro_listing, samples)),
            "readonly_open_one": summary(await time_async(ro_opening, samples)),
        }


async def resume_child(url: str, session_id: str, mode: str) -> dict[str, Any]:
    """In a fresh process: resume ``session_id`` with a LeanAgent, or load all messages."""
    from taskforce.agent import LeanAgent
    from taskforce.testing import ScriptedModel, reply

    async with StateManager(url) as sm:
        if mode == "load_all":
            start = time.perf_counter()
            messages = await sm.load_messages(session_id)
            return {"seconds": time.perf_counter() - start, "messages": len(messages)}
        state = await sm.load_state(session_id)
        assert state is not None
        if state.get("status") != "running":
            state["status"] = "running"
            await sm.save_state(session_id, state)
        model = ScriptedModel([reply("All steps are done.")])
        agent = LeanAgent(model=model, state_manager=sm)
        start = time.perf_counter()
        result = await agent.execute(ds.MISSION, session_id=session_id)
        seconds = time.perf_counter() - start
        assert result.status.value == "completed", result.status
        return {"seconds": seconds, "messages_sent_to_model": len(model.requests[0].messages)}


def resume_runs(path: Path, session_id: str, mode: str, runs: int) -> dict[str, Any]:
    argv = [sys.executable, __file__, "--child", ds.url_of(path), session_id, mode]
    results = [run_child(argv) for _ in range(runs)]
    inner = [r.json() for r in results]
    secs = sorted(i["seconds"] for i in inner)
    return {
        "median_ms": round(secs[len(secs) // 2] * 1000, 1),
        "peak_rss_mb": sorted(r.max_rss_mb for r in results)[len(results) // 2],
        **{k: v for k, v in inner[0].items() if k != "seconds"},
    }


async def main() -> dict[str, Any]:
    parser = argparse.ArgumentParser()
    parser.add_argument("workdir", type=Path)
    parser.add_argument("--samples", type=int, default=30)
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    path = args.workdir / "scale.db"
    url = ds.url_of(path)
    out: dict[str, Any] = {"sessions": {}, "build_seconds": {}}
    for count in COUNTS:
        out["build_seconds"][str(count)] = round(await ds.grow_sessions(path, count), 1)
        out["sessions"][str(count)] = await at_count(url, count, args.samples)
    lo, hi = out["sessions"][str(COUNTS[0])], out["sessions"][str(COUNTS[-1])]
    out["flatness_100k_vs_1k"] = {k: ratio(hi[k]["median_ms"], lo[k]["median_ms"]) for k in hi}
    out["build_seconds"]["big_session"] = round(await ds.add_big_session(path, BIG_ENTRIES), 1)
    async with StateManager(url) as sm:

        async def tail() -> None:
            assert len(await sm.load_messages(ds.BIG, limit=200)) == 200

        async def history_tail() -> None:
            assert len(await sm.get_history(ds.BIG, limit=200)) == 200

        out["big_session"] = {
            "entries": BIG_ENTRIES,
            "load_last_200_messages": summary(await time_async(tail, args.samples)),
            "load_last_200_history": summary(await time_async(history_tail, args.samples)),
        }
    big = out["big_session"]
    big["resume_big"] = resume_runs(path, ds.BIG, "resume", 3)
    big["resume_small"] = resume_runs(path, ds.TEMPLATE, "resume", 3)
    big["load_all_messages"] = resume_runs(path, ds.BIG, "load_all", 1)
    big["resume_rss_extra_mb"] = round(
        big["resume_big"]["peak_rss_mb"] - big["resume_small"]["peak_rss_mb"], 1
    )
    return out


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        _, _, url, sid, mode = sys.argv
        print(json.dumps(asyncio.run(resume_child(url, sid, mode))), flush=True)
    else:
        run(main)
