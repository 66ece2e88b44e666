"""Generated sequences of calls: nothing escapes `execute`, invariants hold after each call."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from taskforce.plan import PlanLimits
from taskforce.tools import PlannerTool

TASK_LINE = re.compile(r"^- \[[ x]\] (\d+)\. \S.*$")

junk = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=True),
    st.text(max_size=30),
    st.lists(st.integers(min_value=-3, max_value=12), max_size=4),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
texts = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=0, max_size=80
)
index = st.one_of(st.integers(min_value=-2, max_value=12), st.text(max_size=3), junk)
indices = st.one_of(st.lists(index, max_size=4), index)

calls = st.one_of(
    st.fixed_dictionaries(
        {"action": st.just("create_plan")},
        optional={"tasks": st.one_of(st.lists(texts, max_size=6), junk)},
    ),
    st.fixed_dictionaries(
        {"action": st.just("mark_done")},
        optional={
            "step_index": indices,
            "status": st.one_of(
                st.sampled_from(["DONE", "IN_PROGRESS", "FAILED", "SKIPPED", "PENDING"]), junk
            ),
            "note": st.one_of(texts, junk),
        },
    ),
    st.just({"action": "read_plan"}),
    st.fixed_dictionaries(
        {"action": st.just("update_plan")},
        optional={
            "add_steps": st.one_of(st.lists(texts, max_size=3), junk),
            "insert_at": index,
            "remove_indices": indices,
            "step_index": indices,
            "text": st.one_of(texts, junk),
        },
    ),
    st.dictionaries(st.text(max_size=12), junk, max_size=3),
    st.fixed_dictionaries({"action": junk}),
)


def check_invariants(tool: PlannerTool) -> None:
    state = tool.get_state()
    tasks = state["tasks"]
    assert len(tasks) <= 20
    assert len({t["id"] for t in tasks}) == len(tasks)
    assert sum(t["status"] == "IN_PROGRESS" for t in tasks) <= 1
    assert all(t["description"] and "\n" not in t["description"] for t in tasks)
    rendered = tool.get_plan_summary()
    if tasks:
        lines = rendered.split("\n")
        assert len(lines) == len(tasks)
        for number, line in enumerate(lines, start=1):
            match = TASK_LINE.match(line)
            assert match, line
            assert int(match.group(1)) == number
    else:
        assert rendered == "No active plan."


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(calls, min_size=1, max_size=25))
def test_random_calls_never_raise_and_keep_invariants(sequence: list[dict[str, Any]]) -> None:
    tool = PlannerTool(limits=PlanLimits(max_steps=20, max_text=60, max_note=60))

    async def run() -> None:
        version = tool.get_state()["version"]
        for params in sequence:
            before = tool.get_state()
            valid, problem = tool.validate_params(**params)
            result = await tool.execute(**params)
            assert isinstance(result, dict)
            # validate_params checks the arguments alone: what it refuses, execute refuses
            # with the same message; what it accepts, only the plan itself may refuse
            if not valid:
                assert result == {
                    "success": False,
                    "error": problem,
                    "error_type": result["error_type"],
                }
            elif not result["success"]:
                assert tool.decode(params) is not None  # the arguments were fine
            if result["success"]:
                assert isinstance(result["output"], str)
                assert result["output"] == tool.get_plan_summary()
                if params.get("action") != "read_plan":
                    assert tool.get_state()["version"] == version + 1
                    version += 1
            else:
                assert isinstance(result["error"], str) and result["error"]
                assert tool.get_state() == before
            check_invariants(tool)

    asyncio.run(run())
