"""OfflineModel: decomposition, argument inference, and the policy through the real loop."""

from __future__ import annotations

import json
from typing import Any

import pytest

from taskforce.agent import LeanAgent
from taskforce.models.base import Model, ModelResponse, NoCalls
from taskforce.models.offline import (
    NO_TOOL_NOTE,
    OFFLINE_LABEL,
    OfflineModel,
    infer_arguments,
)
from taskforce.store import MemoryStore
from taskforce.tools.base import tool_spec
from taskforce.tools.function import FunctionTool
from taskforce.tools.planner import PlannerTool

# ---- argument inference --------------------------------------------------------------------

CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def test_infer_arguments() -> None:
    assert infer_arguments("Check the weather in Rome", CITY, "weather") == {"city": "Rome"}
    assert infer_arguments('weather for "New York"', CITY, "weather") == {"city": "New York"}
    assert infer_arguments("weather city=Oslo please", CITY, "weather") == {"city": "Oslo"}
    assert infer_arguments("weather", CITY, "weather") == {"city": "weather"}
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "n": {"type": "integer"},
            "unit": {"type": "string", "enum": ["c", "f", "kelvin"]},
            "verbose": {"type": "boolean", "default": False},
            "limit": {"type": "number", "default": 3},
        },
        "required": ["n", "unit"],
    }
    assert infer_arguments("convert 42 degrees to kelvin", schema) == {"n": 42, "unit": "kelvin"}
    assert infer_arguments("convert 42 degrees", schema) == {"n": 42, "unit": "c"}
    assert infer_arguments("convert n=7 verbose=yes", schema) == {
        "n": 7,
        "unit": "c",
        "verbose": True,
    }
    assert infer_arguments("convert some degrees", schema) is None  # no number for `n`
    nested = {"type": "object", "properties": {"cfg": {"type": "object"}}, "required": ["cfg"]}
    assert infer_arguments("configure it", nested) is None


# ---- the policy through the real loop ----------------------------------------------------------


def _tools(log: list[tuple[str, str]]) -> list[FunctionTool]:
    def weather(city: str) -> str:
        """Current weather for a city."""
        log.append(("weather", city))
        return {"rome": "19°C, sunny"}.get(city.lower(), "unknown city")

    def calculator(expression: str) -> float:
        """Evaluate arithmetic like 2*(3+4)."""
        log.append(("calculator", expression))
        if not set(expression) <= set("0123456789+-*/(). "):
            raise ValueError(f"unsupported characters in {expression!r}")
        return float(eval(expression))  # digits and operators only

    return [FunctionTool(weather), FunctionTool(calculator)]


def test_offline_model_satisfies_the_protocol() -> None:
    model = OfflineModel()
    assert isinstance(model, Model)
    assert model.name == "offline" and model.context_window is None
    assert model.count_tokens([{"role": "user", "content": "x" * 400}], []) >= 100


async def test_runs_a_mission_through_the_loop_with_tools() -> None:
    log: list[tuple[str, str]] = []
    events: list[Any] = []
    agent = LeanAgent(OfflineModel(), plan_first=False, tools=_tools(log), on_event=events.append)
    mission = "1. Check the weather in Rome\n2. calculator: 2*(3+4)\n3. Write a short summary"
    result = await agent.execute(mission, session_id="t1")
    assert result.status.value == "completed"
    assert log == [("weather", "Rome"), ("calculator", "2*(3+4)")]
    state = agent.planner.get_state()
    # no tool fits step 3: it is skipped, and says why, instead of being called done
    assert [t["status"] for t in state["tasks"]] == ["DONE", "DONE", "SKIPPED"]
    notes = [t["note"] for t in state["tasks"]]
    assert "19°C, sunny" in notes[0] and "14" in notes[1] and notes[2] == NO_TOOL_NOTE
    assert OFFLINE_LABEL in result.final_message
    assert "2 of 3 steps done, 1 skipped" in result.final_message
    assert "step 2, calculator: 14.0" in result.final_message
    assert "Skipped (no tool fits): 3. Write a short summary." in result.final_message
    kinds = [e.kind.value for e in events]
    assert kinds.count("plan_updated") >= 4 and kinds[-1] == "final_answer"
    # the step goes IN_PROGRESS in the same reply that runs its tool
    calls = [e.data for e in events if e.kind.value == "tool_call"]
    assert calls[1]["arguments"]["status"] == "IN_PROGRESS" and calls[2]["name"] == "weather"


async def test_failing_tool_marks_the_step_failed_and_goes_on() -> None:
    log: list[tuple[str, str]] = []
    agent = LeanAgent(OfflineModel(), plan_first=False, tools=_tools(log))
    result = await agent.execute("Use the calculator for 'two plus two', then celebrate")
    tasks = agent.planner.get_state()["tasks"]
    assert [t["status"] for t in tasks] == ["FAILED", "SKIPPED"]
    assert "unsupported characters" in tasks[0]["note"]
    assert "1 failed" in result.final_message and result.status.value == "completed"


async def test_stateless_resume_continues_where_the_stored_session_stopped() -> None:
    store = MemoryStore()
    log: list[tuple[str, str]] = []
    mission = "Check the weather in Rome, then add notes; then calculator: 1+1; then wrap up"
    first = LeanAgent(
        OfflineModel(), plan_first=False, tools=_tools(log), state_manager=store, max_steps=4
    )
    stopped = await first.execute(mission, session_id="resume-me")
    assert stopped.status.value == "max_steps" and stopped.open_steps
    # a fresh model instance and a fresh agent: only the stored conversation and plan remain
    second = LeanAgent(
        OfflineModel(), plan_first=False, tools=_tools(log), state_manager=store, max_steps=30
    )
    done = await second.execute(mission, session_id="resume-me")
    assert done.status.value == "completed" and not done.open_steps
    assert log.count(("weather", "Rome")) == 1 and log.count(("calculator", "1+1")) == 1
    tasks = second.planner.get_state()["tasks"]
    assert [t["status"] for t in tasks] == ["DONE", "SKIPPED", "DONE", "SKIPPED"]


async def test_a_new_request_in_a_finished_session_extends_its_plan() -> None:
    store = MemoryStore()
    agent = LeanAgent(OfflineModel(), plan_first=False, state_manager=store)
    await agent.execute("Write a poem, then read it aloud", session_id="chat")
    second = await agent.execute("Bake bread", session_id="chat")
    assert second.status.value == "completed"
    tasks = agent.planner.get_state()["tasks"]
    assert [t["description"] for t in tasks] == ["Write a poem", "Read it aloud", "Bake bread"]
    assert [t["status"] for t in tasks] == ["SKIPPED"] * 3  # no tool fits: skipped, not dropped
    state = await store.load_state("chat")
    assert state is not None and state["mission"] == "Write a poem, then read it aloud"


@pytest.mark.parametrize("mission", ["hello!", "Thanks", "   ;;; "])
async def test_small_talk_and_empty_requests_get_an_answer_without_a_plan(mission: str) -> None:
    agent = LeanAgent(OfflineModel(), plan_first=False)
    result = await agent.execute(mission)
    assert result.status.value == "completed" and OFFLINE_LABEL in result.final_message
    assert agent.planner.get_state()["tasks"] == []


def _planner_spec() -> list[dict[str, Any]]:
    return [tool_spec(PlannerTool())]


def test_refused_planner_change_stops_with_an_answer() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "planner", "arguments": "{}"}}
    messages = [
        {"role": "user", "content": "do a; then b"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": json.dumps(
            {"success": False, "error": "bad step"})},
    ]  # fmt: skip
    reply = OfflineModel().decide(messages, _planner_spec())
    assert not reply.tool_calls and reply.content and "bad step" in reply.content


@pytest.mark.parametrize(
    "junk",
    [
        [None, 3, "x", {"role": "assistant", "tool_calls": "nope"}],
        [{"role": "assistant", "tool_calls": [{"function": None}, 5, {"id": 1}]}],
        [{"role": "tool", "tool_call_id": None, "content": "{not json"}],
        [{"role": "user", "content": [{"type": "text", "text": "1. a\n2. b"}, "junk"]}],
    ],
)
def test_garbage_conversations_never_crash(junk: list[Any]) -> None:
    reply = OfflineModel().decide(junk, _planner_spec())
    assert isinstance(reply, ModelResponse)
    assert reply.content or reply.tool_calls


def test_without_a_planner_it_answers_with_the_steps() -> None:
    reply = OfflineModel().decide([{"role": "user", "content": "a; b"}], [])
    assert reply.content and "1. A" in reply.content and "2. B" in reply.content


async def test_same_conversation_same_answer() -> None:
    messages = [{"role": "user", "content": "Plan it; do it"}]
    one = await OfflineModel().complete(messages, _planner_spec())
    two = await OfflineModel().complete(messages, _planner_spec())
    assert one == two and one.tool_calls[0].name == "planner"
    assert json.loads(one.tool_calls[0].arguments) == {
        "action": "create_plan",
        "tasks": ["Plan it", "Do it"],
    }
    assert one.usage.prompt_tokens > 0


def test_a_tool_call_cut_off_by_an_interruption_is_run_again() -> None:
    log: list[tuple[str, str]] = []
    specs = [tool_spec(PlannerTool()), *(tool_spec(t) for t in _tools(log))]

    def call(id_: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
        function = {"name": name, "arguments": json.dumps(args)}
        return {"role": "assistant", "content": None,
                "tool_calls": [{"id": id_, "type": "function", "function": function}]}  # fmt: skip

    plan = "- [ ] 1. Check the weather in Rome (in progress)"
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "Check the weather in Rome"},
        call("offline-1", "planner", {"action": "create_plan", "tasks": ["x"]}),
        {"role": "tool", "tool_call_id": "offline-1", "content": json.dumps(
            {"success": True, "output": plan})},
        call("offline-step1-2", "weather", {"city": "Rome"}),
        {"role": "tool", "tool_call_id": "offline-step1-2", "content": json.dumps(
            {"success": False, "error": "interrupted", "error_type": "interrupted"})},
    ]  # fmt: skip
    again = OfflineModel().decide(messages, specs)
    assert [(c.name, json.loads(c.arguments)) for c in again.tool_calls] == [
        ("weather", {"city": "Rome"})
    ]
    messages[-1]["content"] = json.dumps({"success": True, "output": "19°C"})
    done = OfflineModel().decide(messages, specs)
    assert json.loads(done.tool_calls[0].arguments) == {
        "action": "mark_done", "step_index": [1], "status": "DONE", "note": "weather → 19°C"
    }  # fmt: skip


async def test_a_request_longer_than_the_cap_says_what_was_left_out() -> None:
    agent = LeanAgent(OfflineModel(max_steps=3), plan_first=False, max_steps=50)
    result = await agent.execute("\n".join(f"{i}. step {i}" for i in range(1, 6)))
    assert len(agent.planner.get_state()["tasks"]) == 3
    assert "2 more steps than the 3 I plan at once" in result.final_message


async def test_a_question_about_a_finished_plan_is_answered_from_it() -> None:
    """Issue 13: in chat, "What is left?" became a plan step; it is answered from the plan."""
    store = MemoryStore()
    agent = LeanAgent(OfflineModel(), plan_first=False, state_manager=store)
    await agent.execute("Write a poem, then read it aloud", session_id="chat")
    before = agent.planner.get_state()["tasks"]
    answer = await agent.execute("What is left?", session_id="chat")
    assert agent.planner.get_state()["tasks"] == before  # nothing planned, nothing changed
    assert answer.final_message.startswith("Nothing is left. Finished the plan: 0 of 2 steps")
    assert answer.status.value == "completed"
    state = await store.load_state("chat")
    assert state is not None and state["request"] == "Write a poem, then read it aloud"


async def test_a_question_while_steps_are_open_lists_them_and_does_no_work() -> None:
    store = MemoryStore()
    first = LeanAgent(OfflineModel(), plan_first=False, state_manager=store, max_steps=2)
    stopped = await first.execute("Wash; dry; fold", session_id="laundry")
    assert stopped.status.value == "max_steps"
    before = first.planner.get_state()["tasks"]
    agent = LeanAgent(OfflineModel(), plan_first=False, state_manager=store)
    answer = await agent.execute("What is left?", session_id="laundry")
    assert agent.planner.get_state()["tasks"] == before
    assert answer.final_message.startswith("Left: 2 steps of 3 (1 finished):\n- 2. Dry\n- 3. Fold")
    assert answer.status.value == "incomplete" and answer.steps == 1


async def test_a_question_on_a_session_without_a_plan_says_so() -> None:
    agent = LeanAgent(OfflineModel(), plan_first=False)
    answer = await agent.execute("What is left?")
    assert answer.final_message.startswith("There is no plan yet")
    assert agent.planner.get_state().get("tasks") in (None, [])


async def test_told_to_answer_it_answers_in_words_though_the_tools_are_shown() -> None:
    log: list[tuple[str, str]] = []
    specs = [tool_spec(t) for t in [PlannerTool(), *_tools(log)]]
    user = [{"role": "user", "content": "1. Check the weather in Rome\n2. Write a summary"}]
    free = await OfflineModel().complete(user, specs)
    told = await OfflineModel().complete(user, NoCalls(specs))
    assert free.tool_calls  # it plans
    assert not told.tool_calls and told.content
