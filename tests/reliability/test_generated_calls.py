"""Generated tool calls: no exception escapes, invariants hold, refused calls change nothing.

Quick mode: a few thousand calls; long mode: over 100,000 (in memory, plus calls on a
store-bound planner on SQLite and PostgreSQL, plus random turns through the agent loop).
"""

from __future__ import annotations

import json
import random
import traceback
from collections import Counter
from typing import Any

from taskforce.agent import LeanAgent
from taskforce.models.base import ModelResponse, ToolCall
from taskforce.plan import Plan
from taskforce.store import StateManager
from taskforce.testing import FunctionModel, reply
from taskforce.tools.planner import PlannerTool
from tests.reliability.calls import random_call
from tests.reliability.conftest import Mode
from tests.reliability.invariants import IdTracker, check_plan
from tests.reliability.ledger import Ledger


class Tally:
    """Counts of what happened, and the first few escaped exceptions."""

    def __init__(self) -> None:
        self.outcomes: Counter[str] = Counter()
        self.escaped: list[str] = []

    def as_figures(self) -> dict[str, Any]:
        return {
            "calls": sum(self.outcomes.values()),
            "succeeded": self.outcomes["ok"],
            "refused": sum(v for k, v in self.outcomes.items() if k != "ok"),
            "refusals by error_type": {k: v for k, v in self.outcomes.most_common() if k != "ok"},
            "exceptions escaped": len(self.escaped),
        }


async def drive(tool: PlannerTool, calls: int, seed: int, tally: Tally) -> None:
    """Send generated calls to ``tool``, checking the invariants after each."""
    rng = random.Random(seed)
    ids = IdTracker()
    for _ in range(calls):
        before = tool.get_state()
        params = random_call(rng, len(before.get("tasks", [])))
        predicted, _ = tool.validate_params(**params)
        try:
            result = await tool.execute(**params)
        except Exception:  # the contract: never raises
            tally.escaped.append(f"{params!r}: {traceback.format_exc(limit=3)}")
            continue
        after = tool.get_state()
        assert isinstance(result, dict) and isinstance(result.get("success"), bool), result
        if result["success"]:
            tally.outcomes["ok"] += 1
            assert isinstance(result["output"], str)
            if params.get("action") == "read_plan":
                assert after == before and result["output"] == tool.get_plan_summary()
            elif " already " in result["message"]:  # a status the steps had: nothing changes
                assert after == before, params
            else:
                assert after["version"] > before.get("version", 0), params
        else:
            tally.outcomes[result.get("error_type", "?")] += 1
            assert isinstance(result["error"], str) and result["error"], result
            assert after == before, f"a refused call changed the plan: {params!r}"
        if not predicted:  # validate_params checks the arguments alone (issue 13.23):
            # what it refuses is refused; what it accepts only the plan may still refuse
            assert not result["success"], f"validate_params disagreed on {params!r}"
        check_plan(after)
        ids.update(after)


async def test_generated_calls_in_memory(mode: Mode, ledger: Ledger) -> None:
    calls = mode.pick(2_000, 100_000)
    tally = Tally()
    for seed in range(calls // 1_000):
        await drive(PlannerTool(), 1_000, seed, tally)
    ledger.record("generated calls, in-memory planner", **tally.as_figures())
    assert not tally.escaped, tally.escaped[:3]
    assert tally.outcomes["ok"] > calls // 10  # the generator must exercise real changes too
    assert sum(tally.outcomes.values()) > calls // 2


async def test_generated_calls_on_a_store(mode: Mode, ledger: Ledger, db_url: str) -> None:
    """Bound to a session: after every call the stored plan equals the tool's plan."""
    calls = mode.pick(200, 5_000)
    tally = Tally()
    backend = db_url.split(":", 1)[0].split("+")[0]
    async with StateManager(db_url) as sm:
        tool = PlannerTool(state_manager=sm, session_id="fuzz")
        rng_seed = 7
        per_round = 50
        for round_ in range(calls // per_round):
            await drive(tool, per_round, rng_seed + round_, tally)
            stored = await sm.load_state("fuzz")
            if stored is not None:
                assert Plan.from_state(stored["plan"]).to_state() == tool.get_state()
            fresh = PlannerTool(state_manager=sm, session_id="fuzz")
            assert (await fresh.execute(action="read_plan"))["output"] == tool.get_plan_summary()
        history = await sm.get_history("fuzz")
    ledger.record(
        f"generated calls, planner bound to {backend}",
        **tally.as_figures(),
        **{"history entries written": len(history)},
    )
    assert not tally.escaped, tally.escaped[:3]
    assert tally.outcomes["ok"] > 0
    assert [h.id for h in history] == sorted(h.id for h in history)
    versions = [h.version for h in history]
    assert versions == sorted(versions), "history out of version order"


def _random_turn(rng: random.Random, turn: int) -> ModelResponse:
    """What a confused model might send: planner calls, unknown tools, broken JSON."""
    calls = []
    for k in range(rng.choice([1, 1, 1, 2, 3])):
        call_id = f"c{turn}_{k}"
        roll = rng.random()
        if roll < 0.7:
            calls.append(ToolCall(call_id, "planner", json.dumps(random_call(rng, 10))))
        elif roll < 0.8:
            calls.append(
                ToolCall(call_id, "planner", rng.choice(["{", "", "null", "[1]", "{'a':"]))
            )
        elif roll < 0.9:
            calls.append(ToolCall(call_id, rng.choice(["nope", "", "planner ", "x" * 300]), "{}"))
        else:
            calls.append(ToolCall(rng.choice(["", call_id]), "planner", '{"action": "read_plan"}'))
    return ModelResponse(content=rng.choice([None, "", "thinking"]), tool_calls=tuple(calls))


async def test_random_turns_never_crash_the_agent_loop(
    mode: Mode, ledger: Ledger, tmp_path: Any
) -> None:
    turns = mode.pick(100, 5_000)
    per_run = 50
    statuses: Counter[str] = Counter()
    tool_calls = model_turns = 0
    async with StateManager(f"sqlite+aiosqlite:///{tmp_path / 'agent.db'}") as sm:
        for run in range(turns // per_run):
            rng = random.Random(run)

            def model_fn(
                messages: list[dict[str, Any]],
                tools: list[dict[str, Any]],
                rng: random.Random = rng,
            ) -> Any:
                nonlocal tool_calls, model_turns
                model_turns += 1
                if sum(1 for m in messages if m["role"] == "assistant") >= per_run - 1:
                    return reply("stopping")
                response = _random_turn(rng, len(messages))
                tool_calls += len(response.tool_calls)
                return response

            agent = LeanAgent(
                model=FunctionModel(model_fn), state_manager=sm, max_steps=per_run + 3
            )
            result = await agent.execute(f"fuzz mission {run}", session_id=f"agent-fuzz-{run}")
            statuses[result.status.value] += 1
            check_plan(agent.planner.get_state())
            stored = await sm.load_state(f"agent-fuzz-{run}")
            assert stored is not None and stored["status"] == result.status.value
            check_plan(stored.get("plan") or {"tasks": []})
    ledger.record(
        "random model turns through LeanAgent (SQLite store)",
        **{
            "runs": turns // per_run,
            "model turns": model_turns,
            "tool calls sent": tool_calls,
            "run statuses": dict(statuses),
        },
    )
    assert sum(statuses.values()) == turns // per_run
    assert "failed" not in statuses
