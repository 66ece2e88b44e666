"""Many worker processes on one plan, and a worker killed mid-step (SQLite and PostgreSQL).

Real processes (``team_worker.py``: the real Worker, claims and leases), a real database.
Nothing here is timed: the tests wait for database states, with a guard against hangs.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from taskforce.plan import Plan, StepStatus
from taskforce.store import HistoryEntry, StateManager
from tests.reliability.conftest import Mode
from tests.reliability.ledger import Ledger

WORKER = str(Path(__file__).with_name("team_worker.py"))
GUARD = 600.0  # seconds before a hung run fails the test (a guard, not a measurement)


def dag(steps: int, seed: int) -> list[dict[str, Any]]:
    """A plan of `steps` steps, most depending on one to three earlier ones."""
    rng = random.Random(seed)
    tasks: list[dict[str, Any]] = []
    for number in range(1, steps + 1):
        deps = sorted(
            rng.sample(range(max(1, number - 12), number), k=min(number - 1, rng.randint(0, 3)))
        )
        tasks.append({"description": f"task {number}", "depends_on": deps})
    return tasks


def start(
    url: str, session: str, owner: str, lease: float, model: str = "instant"
) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, WORKER, url, session, owner, str(lease), model],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finished(proc: subprocess.Popen[str]) -> dict[str, Any]:
    out, err = proc.communicate(timeout=GUARD)
    assert proc.returncode == 0, err[-3000:]
    report: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return report


def check_history(history: list[HistoryEntry], plan: Plan) -> dict[str, list[HistoryEntry]]:
    """Consistency of a team's history with its plan; the step events per step id."""
    versions = [h.version for h in history]
    assert versions == sorted(versions), "history out of commit order"
    per_step: dict[str, list[HistoryEntry]] = defaultdict(list)
    for entry in history:
        if entry.step_id is not None:
            per_step[entry.step_id].append(entry)
    for step in plan.steps:  # replaying the status changes gives the stored plan
        status = "PENDING"
        for entry in per_step[step.id]:
            if entry.from_status is not None:
                assert entry.from_status == status, (step.id, entry.kind, status)
            status = entry.to_status or status
        assert status == step.status.value, (step.id, status)
    return per_step


async def test_eight_workers_do_every_step_once(db_url: str, mode: Mode, ledger: Ledger) -> None:
    steps, processes = mode.pick(200, 1000), 8
    tasks = dag(steps, seed=17)
    async with StateManager(db_url) as sm:
        await sm.save_state("crew", {"mission": "m", "plan": Plan().replaced(tasks).to_state()})
    began = time.perf_counter()
    # a lease far longer than a step: under any load no claim lapses here (that is the
    # next test's subject), so every step must be started and finished exactly once
    procs = [start(db_url, "crew", f"w{i}", 600.0) for i in range(processes)]
    reports = [finished(p) for p in procs]
    seconds = time.perf_counter() - began
    async with StateManager(db_url) as sm:
        state = await sm.load_state("crew")
        assert state is not None
        plan = Plan.from_state(state["plan"])
        history = await sm.get_history("crew")
    # every step done, once, by one owner: the one that says so, with its own note
    claimed = [(n, r["owner"]) for r in reports for n in r["done"]]
    assert sorted(n for n, _ in claimed) == list(range(1, steps + 1))
    for number, owner in claimed:
        step = plan.steps[number - 1]
        assert (step.status, step.owner) == (StepStatus.DONE, owner)
        assert step.note == f"result of {step.description}"  # no lost update
    assert all(not r["lost"] and not r["failed"] for r in reports), reports
    per_step = check_history(history, plan)
    position = {h.id: i for i, h in enumerate(history)}
    completed: dict[str, int] = {}
    for step in plan.steps:
        kinds = [(h.kind, h.data.get("owner")) for h in per_step[step.id]]
        assert kinds == [("step_started", step.owner), ("step_completed", step.owner)], kinds
        completed[step.id] = position[per_step[step.id][1].id]
    for step in plan.steps:  # no dependency started early
        started = position[per_step[step.id][0].id]
        assert all(completed[dep] < started for dep in step.depends_on), step.id
    ledger.record(
        f"team: {processes} workers, {steps}-step plan ({db_url.split(':')[0]})",
        steps=steps,
        commits=len(history),
        seconds=round(seconds, 1),
        per_worker=sorted(len(r["done"]) for r in reports),
    )


async def test_a_killed_worker_s_step_is_taken_over(db_url: str, ledger: Ledger) -> None:
    tasks: list[Any] = ["first", {"description": "second", "depends_on": [1]}]
    async with StateManager(db_url) as sm:
        await sm.save_state("crash", {"mission": "m", "plan": Plan().replaced(tasks).to_state()})
        victim = start(db_url, "crash", "victim", 2.0, model="hang")
        try:
            deadline = time.monotonic() + GUARD
            while time.monotonic() < deadline:  # wait until the victim is working on step 1
                state = await sm.load_state("crash")
                assert state is not None and victim.poll() is None
                if state["plan"]["tasks"][0].get("owner") == "victim":
                    break
                await asyncio.sleep(0.05)
            victim.send_signal(signal.SIGKILL)
        finally:
            if victim.poll() is None:
                victim.kill()
            victim.communicate(timeout=GUARD)
        report = await asyncio.to_thread(finished, start(db_url, "crash", "rescuer", 2.0))
        state = await sm.load_state("crash")
        history = await sm.get_history("crash")
    assert report["done"] == [1, 2]
    plan = Plan.from_state(state["plan"] if state else None)
    assert [(s.status, s.owner) for s in plan.steps] == [(StepStatus.DONE, "rescuer")] * 2
    first = check_history(history, plan)[plan.steps[0].id]
    assert [(h.kind, h.data.get("owner")) for h in first] == [
        ("step_started", "victim"),
        ("step_interrupted", "victim"),
        ("step_started", "rescuer"),
        ("step_completed", "rescuer"),
    ]
    ledger.record(f"team: SIGKILL mid-step ({db_url.split(':')[0]})", taken_over=True)


def taskforce(*args: str, url: str) -> subprocess.Popen[str]:
    """The installed `taskforce` executable, offline model, `url` as its database."""
    env = {**os.environ, "TASKFORCE_DB_URL": url, "COLUMNS": "200"}
    env.pop("TASKFORCE_MODEL", None)
    return subprocess.Popen(
        [str(Path(sys.executable).parent / "taskforce"), *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def done(proc: subprocess.Popen[str]) -> str:
    out, err = proc.communicate(timeout=GUARD)
    assert proc.returncode == 0, (out[-2000:], err[-2000:])
    assert "Traceback" not in err
    return out


async def test_two_shells_work_the_plan_a_run_made(db_url: str) -> None:
    """`taskforce run --workers 0` plans; `watch` follows; two `taskforce work` finish it."""
    mission = "Plan a party; invite friends; buy snacks; clean up"
    lead = taskforce("run", mission, "--workers", "0", "--session", "party", "--plain", url=db_url)
    async with StateManager(db_url) as sm:
        deadline = time.monotonic() + GUARD
        while time.monotonic() < deadline:  # until the lead's plan is stored
            assert lead.poll() is None, lead.communicate()
            state = await sm.load_state("party")
            tasks = state["plan"]["tasks"] if state and state.get("plan") else []
            if len(tasks) == 4 and state is not None and state.get("status") == "running":
                break
            await asyncio.sleep(0.05)
        watcher = taskforce("watch", "party", "--until-done", "--plain", url=db_url)
        assert watcher.stdout is not None
        first = await asyncio.to_thread(watcher.stdout.readline)
        assert first.startswith("session v") and "0/4 done" in first
        shells = [taskforce("work", "party", "--owner", n, url=db_url) for n in ("ann", "bo")]
        outs = [await asyncio.to_thread(done, p) for p in shells]
        answer = await asyncio.to_thread(done, lead)
        watched = first + await asyncio.to_thread(done, watcher)
        state = await sm.load_state("party")
        history = await sm.get_history("party")
    assert state is not None and state["status"] == "completed"
    plan = Plan.from_state(state["plan"])
    assert [s.status for s in plan.steps] == [StepStatus.DONE] * 4
    owners = {s.owner for s in plan.steps}
    assert owners <= {"ann", "bo"}
    for name, out in zip(("ann", "bo"), outs, strict=True):
        mine = [plan.number_of(s) for s in plan.steps if s.owner == name]
        assert f"{name} leaves: every step is finished" in out
        assert f"(steps done by {name}: {', '.join(map(str, mine)) or 'none'})" in out
    assert "4 of 4 steps done" in answer
    for step in plan.steps:  # the watcher saw each step finish, by its owner
        assert f"step {plan.number_of(step)} DONE by {step.owner}: {step.description}" in watched
    started = [h for h in history if h.kind == "step_started"]
    assert sorted(h.data["owner"] for h in started) == sorted(s.owner or "" for s in plan.steps)
