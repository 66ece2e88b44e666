"""Claims per second and claim latency (p50, p99) with many worker processes on one plan.

    python bench/bench_claims.py WORKDIR [--pg URL] [--seconds S] [--rounds R]
                                 [--steps 200,1000] [--out FILE]

Configurations: 8 and 32 processes on PostgreSQL, 8 on one SQLite file. Each worker is a
separate process with its own ``StateManager``; the processes of a configuration are
started once and then, round after round, take turns at two contenders (the order
alternating per round, A B, B A, ...), all workers at once for S seconds:

* ``claims``: claim the next step of ONE shared session's plan (independent steps) with
  a lease, then finish it (``claim_step`` + ``finish_step``); each call's latency is
  recorded;
* ``commits``: the baseline, the same processes doing the store's plain locked
  read-change-save on ONE session (``update_state`` bumping a counter): the cheapest
  write that takes the same session lock.

The figure that travels is the per-round ratio claims/s ÷ commits/s (both sides of a
ratio saw the same machine load); absolute rates and latencies are context for the
machine and load printed beside them. Afterwards each claims session is checked: every
finished step has one ``step_started`` event and its owner is the worker that claimed
it; a double claim or a lost finish is counted and must be 0.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import databases, machine
from bench._interleave import ratio_summary
from taskforce.plan import Plan
from taskforce.store import StateManager

CONFIGS = (("postgresql", 8), ("postgresql", 32), ("sqlite", 8))
STEPS = (200, 1_000)  # plan sizes (a claim reads and checks the whole plan: size matters)


async def worker(url: str, owner: str) -> None:
    """One process: say ready, then run each command from stdin (``claims SID S``...)."""
    loop = asyncio.get_running_loop()
    async with StateManager(url) as sm:
        await sm.list_sessions(limit=1)
        print("ready", flush=True)
        while line := await loop.run_in_executor(None, sys.stdin.readline):
            contender, session_id, seconds = line.split()
            out = await _run(sm, contender, session_id, owner, float(seconds))
            print(json.dumps(out), flush=True)


async def _run(
    sm: StateManager, contender: str, session_id: str, owner: str, seconds: float
) -> dict[str, Any]:
    done: list[int] = []
    latencies: list[float] = []
    errors: list[str] = []
    dry = False
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        try:
            began = time.perf_counter()
            if contender == "claims":
                claim = await sm.claim_step(session_id, owner, lease=600)
                latencies.append(time.perf_counter() - began)
                if claim is None:  # every step is taken: the plan was too small for S seconds
                    dry = True
                    break
                await sm.finish_step(session_id, claim.step.id, owner, "DONE", owner)
                done.append(claim.number)
            else:
                await sm.update_state(session_id, _bump)
                latencies.append(time.perf_counter() - began)
                done.append(0)
        except Exception as exc:
            errors.append(f"{type(exc).__name__}: {exc}"[:200])
    return {"done": done, "latencies": latencies, "errors": errors, "dry": dry}


def _bump(current: dict[str, Any] | None) -> tuple[dict[str, Any], list[Any]]:
    state = {k: v for k, v in (current or {}).items() if k != "version"}
    state["counter"] = int(state.get("counter", 0)) + 1
    return state, []


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(len(ordered) * q))] * 1000, 2)


async def _check(url: str, session_id: str, claimed: dict[int, str], steps: int) -> dict[str, int]:
    """Double claims and lost finishes in a claims session (both must be 0)."""
    async with StateManager(url) as sm:
        state = await sm.load_state(session_id)
        history = await sm.get_history(session_id, limit=10 * steps)
    assert state is not None
    tasks = state["plan"]["tasks"]
    starts = Counter(h.step_id for h in history if h.kind == "step_started")
    lost = sum(
        1 for n, owner in claimed.items() if (tasks[n - 1]["status"], tasks[n - 1]["owner"]) != (
            "DONE", owner)
    )  # fmt: skip
    return {"double_claims": sum(c - 1 for c in starts.values() if c > 1), "lost": lost}


async def measure(
    url: str, processes: int, seconds: float, rounds: int, steps: int
) -> dict[str, Any]:
    """One configuration: start the workers, then `rounds` interleaved rounds (+1 warm-up)."""
    argv = [sys.executable, __file__, "--worker", url]
    procs = [
        subprocess.Popen(  # noqa: ASYNC220 (the workers are the point)
            [*argv, f"w{i}"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        for i in range(processes)
    ]
    try:
        for proc in procs:
            assert proc.stdout is not None
            if proc.stdout.readline().strip() != "ready":
                raise RuntimeError("a worker failed to start")
        per_round: dict[str, list[dict[str, Any]]] = {"claims": [], "commits": []}
        checks = Counter[str]()
        for r in range(rounds + 1):
            order = ["claims", "commits"] if r % 2 == 0 else ["commits", "claims"]
            for contender in order:
                sid = f"{contender}-{uuid.uuid4().hex[:8]}"
                async with StateManager(url) as sm:
                    plan = Plan().replaced([f"t{i}" for i in range(steps)]) if contender == (
                        "claims") else None  # fmt: skip
                    state = {"mission": "bench", "counter": 0}
                    await sm.save_state(sid, state if plan is None else {**state, "plan": plan})
                for proc in procs:
                    assert proc.stdin is not None
                    proc.stdin.write(f"{contender} {sid} {seconds}\n")
                    proc.stdin.flush()
                results = []
                for proc in procs:
                    assert proc.stdout is not None
                    results.append(json.loads(proc.stdout.readline()))
                latencies = [x for res in results for x in res["latencies"]]
                count = sum(len(res["done"]) for res in results)
                if contender == "claims":
                    claimed = {n: f"w{i}" for i, res in enumerate(results) for n in res["done"]}
                    checks.update(await _check(url, sid, claimed, steps))
                if r > 0:  # round 0 warms up
                    per_round[contender].append(
                        {
                            "per_s": count / seconds,
                            "p50_ms": _pct(latencies, 0.5),
                            "p99_ms": _pct(latencies, 0.99),
                            "errors": sum(len(res["errors"]) for res in results),
                            "dry": any(res.get("dry") for res in results),
                        }
                    )
    finally:
        for proc in procs:
            if proc.stdin is not None:
                proc.stdin.close()
        for proc in procs:
            proc.wait(timeout=120)
    claims, commits = per_round["claims"], per_round["commits"]
    return {
        "processes": processes,
        "claims_per_s_vs_commits": ratio_summary(
            [a["per_s"] / b["per_s"] for a, b in zip(claims, commits, strict=True) if b["per_s"]]
        ),
        "claims_per_s": round(statistics.median(c["per_s"] for c in claims), 1),
        "claim_p50_ms": statistics.median(c["p50_ms"] for c in claims),
        "claim_p99_ms": statistics.median(c["p99_ms"] for c in claims),
        "commits_per_s": round(statistics.median(c["per_s"] for c in commits), 1),
        "commit_p99_ms": statistics.median(c["p99_ms"] for c in commits),
        "errors": sum(c["errors"] for c in claims + commits),
        "dry_rounds": sum(c.get("dry", False) for c in claims),
        **dict(checks),
    }


def render(result: dict[str, Any]) -> str:
    """The Markdown report."""
    lines = [
        "# Claims benchmark (`bench/bench_claims.py`)",
        "",
        f"Run {result['date']} · `{result['command']}` · load average before "
        f"{result['load_before']}, after {result['load_after']} · "
        f"{result['machine'].get('cores')} cores, {result['machine'].get('cpu')}",
        "",
        *([result["note"], ""] if result.get("note") else []),
        f"Each configuration: its worker processes started once, then {result['rounds']} "
        f"rounds (after a warm-up round) of {result['seconds']} s per contender, contenders "
        "alternating order per round. `claims` = claim_step + finish_step on one shared "
        "plan; `commits` = the store's plain update_state on one session (same lock). "
        "The ratio is per round (median [q1, q3]); absolute figures are this machine "
        'under the load shown. A round "ran dry" when its workers took every step before '
        "the time was up: its claims/s then measures the plan's size, not the speed (use "
        "more steps or fewer seconds).",
        "",
        "| plan steps | backend | workers | claims/s ÷ commits/s | claims/s | claim p50 ms "
        "| claim p99 ms "
        "| commits/s | double claims | lost | errors | rounds ran dry |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in result["rows"]:
        r = row["claims_per_s_vs_commits"]
        lines.append(
            f"| {row['steps']} | {row['backend']} | {row['processes']} "
            f"| {r['median']} [{r['q1']}, {r['q3']}] "
            f"| {row['claims_per_s']} | {row['claim_p50_ms']} | {row['claim_p99_ms']} "
            f"| {row['commits_per_s']} | {row.get('double_claims', 0)} | {row.get('lost', 0)} "
            f"| {row['errors']} | {row.get('dry_rounds', '?')} |"
        )
    return "\n".join(lines) + "\n"


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("workdir", type=Path)
    parser.add_argument("--pg", default=os.environ.get("TASKFORCE_TEST_PG_URL"))
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", default=",".join(map(str, STEPS)), help="plan sizes")
    parser.add_argument("--out", type=Path, default=None, help="also write the Markdown here")
    parser.add_argument("--note", default="", help="how the run was made (printed in the report)")
    args = parser.parse_args()
    load_before = [round(x, 2) for x in os.getloadavg()]
    rows = []
    async with databases(args.workdir, f"claims-{uuid.uuid4().hex[:6]}.db", args.pg) as urls:
        for steps in (int(n) for n in args.steps.split(",")):
            for backend, processes in CONFIGS:
                if backend in urls:
                    row = await measure(urls[backend], processes, args.seconds, args.rounds, steps)
                    rows.append({"steps": steps, "backend": backend, **row})
    result = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "command": " ".join(["python bench/bench_claims.py", *sys.argv[2:]]),
        "machine": await asyncio.to_thread(machine, args.pg),
        "load_before": load_before,
        "load_after": [round(x, 2) for x in os.getloadavg()],
        "seconds": args.seconds,
        "rounds": args.rounds,
        "rows": rows,
        "note": args.note,
    }
    if args.out is not None:
        args.out.write_text(render(result))
    print(json.dumps(result))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        asyncio.run(worker(sys.argv[2], sys.argv[3]))
    else:
        asyncio.run(main())
