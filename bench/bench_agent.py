"""Agent loop overhead per turn, persistence included, and the RSS of a 1,000-step run.

    python bench/bench_agent.py WORKDIR [--pg URL] [--runs N]

The model is instant: :class:`InstantModel` answers from a script computed on the fly
and, unlike ``taskforce.testing.ScriptedModel``, does not record deep copies of every
request (which would measure the test double, not the loop). Each run creates a plan of
M steps, marks them done one per turn, then answers: M + 2 model calls ("turns").

* flatness: on a 200-step plan with no store (``MemoryStore``), the median turn of the
  first 10% of turns against the last 10% (a turn: from one model call to the next);
* per turn: the wall time of ``LeanAgent.execute`` / turns, with no store
  (``MemoryStore``), an SQLite file (WAL, synchronous=FULL) and PostgreSQL;
* memory: peak RSS of a fresh process running a 1,000-step plan (1,002 turns) on SQLite,
  against the same process running a 10-step plan.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._common import PgDatabase, run, run_child
from taskforce.agent import LeanAgent
from taskforce.models.base import Message, ModelResponse, ToolSpec
from taskforce.store import StateManager
from taskforce.testing import call, estimate_tokens, reply

WINDOW = 128_000


class InstantModel:
    """A model that answers at once: create an M-step plan, mark each done, answer."""

    name = "instant"
    context_window = WINDOW

    def __init__(self, steps: int) -> None:
        self._script = self._replies(steps)
        self.calls = 0
        self.stamps: list[float] = []  # perf_counter at each call: turn n = stamps[n+1] - stamps[n]

    @staticmethod
    def _replies(steps: int) -> Iterator[ModelResponse]:
        yield call("planner", action="create_plan", tasks=[f"Step {i}" for i in range(steps)])
        for index in range(1, steps + 1):
            yield call("planner", action="mark_done", step_index=[index], note="done")
        yield reply("All done.")

    def count_tokens(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> int:
        return estimate_tokens(messages, tools)

    async def complete(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec]
    ) -> ModelResponse:
        self.stamps.append(time.perf_counter())
        self.calls += 1
        response = next(self._script)
        if response.tool_calls:
            from dataclasses import replace

            fixed = tuple(replace(c, id=f"call_{self.calls}") for c in response.tool_calls)
            response = replace(response, tool_calls=fixed)
        return response


async def one_run(store: Any, steps: int) -> tuple[float, int]:
    model = InstantModel(steps)
    agent = LeanAgent(model=model, state_manager=store, max_steps=steps + 5, plan_first=True)
    start = time.perf_counter()
    result = await agent.execute("Benchmark mission", session_id=f"agent-{uuid.uuid4().hex}")
    elapsed = time.perf_counter() - start
    assert result.status.value == "completed", (result.status, result.final_message)
    assert not result.open_steps, result.open_steps
    return elapsed, model.calls


async def per_turn(store: Any, steps: int, runs: int) -> dict[str, Any]:
    await one_run(store, steps)  # warm-up
    per: list[float] = []
    for _ in range(runs):
        elapsed, turns = await one_run(store, steps)
        per.append(elapsed / turns)
    return {
        "plan_steps": steps,
        "turns_per_run": steps + 2,
        "median_ms_per_turn": round(statistics.median(per) * 1000, 3),
        "runs": runs,
    }


async def flatness(steps: int, runs: int) -> dict[str, Any]:
    """Per-turn cost through a mission (MemoryStore): the first 10% of turns vs the last."""
    firsts: list[float] = []
    lasts: list[float] = []
    medians: list[float] = []
    for _ in range(runs + 1):
        model = InstantModel(steps)
        agent = LeanAgent(model=model, max_steps=steps + 5, plan_first=True)
        result = await agent.execute("Benchmark mission", session_id=f"flat-{uuid.uuid4().hex}")
        assert result.status.value == "completed", result.status
        turns = [b - a for a, b in zip(model.stamps, model.stamps[1:], strict=False)]
        tenth = max(1, len(turns) // 10)
        firsts.append(statistics.median(turns[1 : tenth + 1]))  # turn 0 creates the plan
        lasts.append(statistics.median(turns[-tenth:]))
        medians.append(statistics.median(turns))
    firsts, lasts, medians = firsts[1:], lasts[1:], medians[1:]  # the first run warms up
    return {
        "plan_steps": steps,
        "runs": runs,
        "median_ms_per_turn": round(statistics.median(medians) * 1000, 3),
        "first_10pct_ms": round(statistics.median(firsts) * 1000, 3),
        "last_10pct_ms": round(statistics.median(lasts) * 1000, 3),
        "last_vs_first": round(
            statistics.median(b / a for a, b in zip(firsts, lasts, strict=True)), 2
        ),
    }


async def child(url: str, steps: int) -> dict[str, Any]:
    async with StateManager(url) as sm:
        elapsed, turns = await one_run(sm, steps)
    return {"seconds": round(elapsed, 2), "turns": turns}


async def main() -> dict[str, Any]:
    parser = argparse.ArgumentParser()
    parser.add_argument("workdir", type=Path)
    parser.add_argument("--pg", default=None)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--child-timeout", type=float, default=2400)
    parser.add_argument("--plan-sizes", default="10,100,1000", help="plans run for peak RSS")
    args = parser.parse_args()
    args.workdir.mkdir(parents=True, exist_ok=True)
    url = f"sqlite+aiosqlite:///{args.workdir / 'agent.db'}"
    out: dict[str, Any] = {"per_turn": {}}
    out["flatness_200_steps"] = await flatness(200, max(2, args.runs // 3))
    out["per_turn"]["no_store"] = await per_turn(None, 20, args.runs)
    async with StateManager(url) as sm:
        out["per_turn"]["sqlite"] = await per_turn(sm, 20, args.runs)
    if args.pg:
        pg = PgDatabase(args.pg)
        try:
            async with StateManager(await pg.create()) as sm:
                out["per_turn"]["postgresql"] = await per_turn(sm, 20, args.runs)
        finally:
            await pg.drop()
    base = out["per_turn"]["no_store"]["median_ms_per_turn"]
    for name in ("sqlite", "postgresql"):
        if name in out["per_turn"]:
            row = out["per_turn"][name]
            row["persistence_ms_per_turn"] = round(row["median_ms_per_turn"] - base, 3)
    memory: dict[str, Any] = {}
    for steps in (int(n) for n in args.plan_sizes.split(",")):
        argv = [sys.executable, __file__, "--child", url, str(steps)]
        try:
            res = run_child(argv, timeout=args.child_timeout)
            memory[str(steps)] = {"peak_rss_mb": res.max_rss_mb, **res.json()}
        except subprocess.TimeoutExpired:
            memory[str(steps)] = {"error": f"did not finish within {args.child_timeout:.0f} s"}
    out["memory_by_plan_steps"] = memory
    return out


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        print(json.dumps(asyncio.run(child(sys.argv[2], int(sys.argv[3])))), flush=True)
    else:
        run(main)
