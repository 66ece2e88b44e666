"""Context budget: views that fit the window, the plan kept through every compaction,
and one harder retry when the provider still reports an overflow."""

from __future__ import annotations

import dataclasses
import itertools
import json
from collections.abc import Sequence
from typing import Any

from taskforce.agent import AgentStatus, LeanAgent
from taskforce.agent.context import ContextBudget
from taskforce.agent.overflow import is_context_overflow
from taskforce.agent.prompts import PLAN_HEADER
from taskforce.errors import ContextWindowExceededError, ProviderError
from taskforce.models.base import Message, ModelResponse, ToolSpec, Usage
from taskforce.testing import FunctionModel, ScriptedModel, call, estimate_tokens, reply
from taskforce.tools.function import FunctionTool
from tests.agent.helpers import Events

WINDOW = 2000


def big_page(page: int) -> str:
    """A page of a long document (about 600 tokens)."""
    return f"page {page}: " + "lorem ipsum dolor sit amet " * 90


def valid_pairs(messages: Sequence[Message]) -> bool:
    """Every tool message answers a call of an earlier assistant message, and vice versa."""
    called: set[str] = set()
    answered: set[str] = set()
    for m in messages:
        for c in m.get("tool_calls") or []:
            called.add(c["id"])
        if m["role"] == "tool":
            if m["tool_call_id"] not in called:
                return False
            answered.add(m["tool_call_id"])
    return called == answered


async def test_long_run_in_a_small_window_never_overflows() -> None:
    sizes: list[int] = []
    turn = {"n": 0}

    def fn(messages: list[Message], tools: list[ToolSpec]) -> ModelResponse:
        size = estimate_tokens(messages, tools)
        sizes.append(size)
        if size > WINDOW:
            raise ContextWindowExceededError("the prompt does not fit the context window")
        assert valid_pairs(messages)
        assert messages[1]["content"].startswith("Read pages 1 to 12")  # mission kept
        turn["n"] += 1
        n = turn["n"]
        if n == 1:
            return call("planner", action="create_plan", tasks=["Read pages", "Summarise"])
        if n <= 13:
            return call("big_page", page=n - 1)
        if n == 14:
            return call("planner", action="mark_done", step_index=[1, 2])
        return reply("summary: lorem ipsum")

    events = Events()
    model = FunctionModel(fn, context_window=WINDOW)
    agent = LeanAgent(model=model, tools=[FunctionTool(big_page)], on_event=events)
    result = await agent.execute("Read pages 1 to 12 of the document, then summarise them.")
    assert result.status is AgentStatus.COMPLETED, result
    assert max(sizes) <= WINDOW
    compactions = [e.data["compaction"] for e in events.of("llm_call")]
    assert max(compactions) >= 1
    # every compacted view still shows the plan and the current step, last
    for request, level in zip(model.requests, compactions, strict=True):
        if level:
            last = request.messages[-1]["content"]
            assert last.startswith(PLAN_HEADER)
            assert "Do now: step" in last or "All steps are done" in last
            assert "Results so far: big_page → page " in last  # the cut may have lost them
    # the full history is intact in the session (compaction only changes the view)
    assert result.steps == 15


async def test_overflow_reported_by_provider_is_retried_once_harder(events: Events) -> None:
    seen: list[int] = []

    def fn(messages: list[Message], tools: list[ToolSpec]) -> ModelResponse:
        seen.append(len(json.dumps(messages)))
        if len(seen) == 3:
            raise ContextWindowExceededError("maximum context length is 8192 tokens")
        if len(seen) <= 2:
            return call("big_page", page=len(seen))
        return reply("fine")

    model = FunctionModel(fn)  # no window known: only the provider tells
    agent = LeanAgent(model=model, tools=[FunctionTool(big_page)], on_event=events)
    result = await agent.execute("Read two pages")
    assert result.status is AgentStatus.COMPLETED and result.final_message == "fine"
    assert seen[3] < seen[2]  # the retry sent a smaller view
    assert [e.data["recovered"] for e in events.of("error")] == [True]


async def test_second_overflow_fails_cleanly_with_state_saved() -> None:
    overflow = ContextWindowExceededError("context window exceeded")
    model = ScriptedModel([call("big_page", page=1), overflow, overflow])
    agent = LeanAgent(model=model, tools=[FunctionTool(big_page)])
    result = await agent.execute("Read", "ovf")
    assert result.status is AgentStatus.FAILED
    assert "context window" in (result.error or "")
    state = await agent.store.load_state("ovf")
    assert state is not None and state["status"] == "failed"


def test_overflow_detection() -> None:
    assert is_context_overflow(ContextWindowExceededError("x"))
    assert is_context_overflow(ProviderError("This model's maximum context length is 4096"))
    assert is_context_overflow(ProviderError("request (9000 tokens) exceeds the n_ctx 8192"))
    assert not is_context_overflow(ProviderError("rate limit"))
    assert not is_context_overflow(ValueError("context length"))


def _history(turns: int) -> list[Message]:
    history: list[Message] = [{"role": "user", "content": "the mission"}]
    for i in range(turns):
        history.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"c{i}",
                        "type": "function",
                        "function": {"name": "t", "arguments": "{}"},
                    }
                ],
            }
        )
        history.append({"role": "tool", "tool_call_id": f"c{i}", "content": "x" * 2000})
        history.append({"role": "user", "content": f"{PLAN_HEADER}\nold plan {i}"})
    return history


def test_fit_stages_keep_mission_plan_and_pairs() -> None:
    system: Message = {"role": "system", "content": "sys"}
    note: Message = {"role": "user", "content": f"{PLAN_HEADER}\nnew plan\nCurrent step: 2. b"}
    history = _history(10)
    count = estimate_tokens
    untouched, level = ContextBudget(100_000).fit(
        system, history, [], count, pinned=0, plan_note=note
    )
    stale = [m for m in history[:-1] if str(m["content"]).startswith(PLAN_HEADER)]
    assert level == 0 and untouched == [system, *(m for m in history if m not in stale)]

    view, level = ContextBudget(4000, reserve=0).fit(
        system, history, [], count, pinned=0, plan_note=note
    )
    assert level == 1
    assert count(view, []) <= 4000
    assert view[-1] == note and sum(PLAN_HEADER in str(m["content"]) for m in view) == 1
    assert view[-2]["content"] == "x" * 2000  # the latest result is kept whole
    assert valid_pairs(view)

    view, level = ContextBudget(1200, reserve=0).fit(
        system, history, [], count, pinned=0, plan_note=note
    )
    assert level == 2 and count(view, []) <= 1200
    assert view[1]["content"].startswith("the mission") and "were removed" in view[1]["content"]
    assert view[-1] == note and valid_pairs(view)

    view, level = ContextBudget(300, reserve=0).fit(
        system, history, [], count, pinned=0, plan_note=note
    )
    assert level == 3 and view[-1] == note and valid_pairs(view)
    assert history[2]["content"] == "x" * 2000  # the history itself is never changed


def test_unknown_window_means_no_compaction() -> None:
    history = _history(30)
    view, level = ContextBudget(None).fit(
        {"role": "system", "content": "s"}, history, [], estimate_tokens, pinned=0, plan_note=None
    )
    assert level == 0 and len(view) == len(history) + 1 - 29  # only the latest recitation


def test_only_the_latest_recitation_and_no_older_planner_exchange_is_sent() -> None:
    history: list[Message] = [
        {"role": "user", "content": "the mission"},
        _calls(("p1", "planner"), ("w1", "weather")),
        {"role": "tool", "tool_call_id": "p1", "content": "plan made"},
        {"role": "tool", "tool_call_id": "w1", "content": "4C"},
        {"role": "user", "content": f"{PLAN_HEADER}\nplan v1"},
        _calls(("p2", "planner")),
        {"role": "tool", "tool_call_id": "p2", "content": "step 1 done"},
        {"role": "user", "content": f"{PLAN_HEADER}\nplan v2"},
        _calls(("w2", "weather")),
        {"role": "tool", "tool_call_id": "w2", "content": "5C"},
    ]
    view, level = ContextBudget(None).fit(
        {"role": "system", "content": "s"}, history, [], estimate_tokens, pinned=0, plan_note=None
    )
    assert level == 0 and valid_pairs(view)
    contents = [m.get("content") for m in view]
    assert contents[1] == "the mission" and f"{PLAN_HEADER}\nplan v1" not in contents
    assert "plan made" not in contents and "step 1 done" not in contents
    assert [c["id"] for c in view[2]["tool_calls"]] == ["w1"]  # the weather call stays
    assert contents[-4:] == ["4C", f"{PLAN_HEADER}\nplan v2", None, "5C"]
    assert len(history) == 10 and history[1]["tool_calls"][0]["id"] == "p1"  # untouched


def _calls(*calls: tuple[str, str]) -> Message:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": i, "type": "function", "function": {"name": name, "arguments": "{}"}}
            for i, name in calls
        ],
    }


def test_context_window_option_overrides_model(tools: Any) -> None:
    agent = LeanAgent(model=ScriptedModel([], context_window=100_000), context_window=4096)
    assert agent.budget.window == 4096
    agent = LeanAgent(model=ScriptedModel([], context_window=8192))
    assert agent.budget.window == 8192


def test_a_turn_counts_only_its_new_messages_and_decides_as_the_exact_count() -> None:
    counted: list[int] = []

    class Counting:
        def count_tokens(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> int:
            counted.append(len(messages))
            return estimate_tokens(messages, tools)

    model = Counting()
    system: Message = {"role": "system", "content": "sys"}
    history: list[Message] = [{"role": "user", "content": "the mission"}]
    budget = ContextBudget(100_000)
    for turn in range(200):
        history.append({"role": "assistant", "content": f"turn {turn} " + "words " * 20})
        view, level = budget.fit(  # the agent passes model.count_tokens, new each turn
            system, history, [], model.count_tokens, pinned=0, plan_note=None
        )
        assert level == 0 and view == [system, *history]
    assert sum(counted) < 3 * len(history)  # linear in the mission, not quadratic
    exact = estimate_tokens([system, *history], [])
    for window in range(exact - 40, exact + 400, 7):  # the same decision as a full count
        _, level = ContextBudget(window, reserve=0).fit(
            system, history, [], estimate_tokens, pinned=0, plan_note=None
        )
        assert (level == 0) == (exact <= window), window


def test_compacted_turns_reuse_their_cut_messages_and_skip_the_full_recount() -> None:
    counted: list[int] = []

    def count(messages: Sequence[Message], tools: Sequence[ToolSpec]) -> int:
        counted.append(len(messages))
        return estimate_tokens(messages, tools)

    system: Message = {"role": "system", "content": "sys"}
    note: Message = {"role": "user", "content": f"{PLAN_HEADER}\nplan"}
    history = _history(30)
    budget = ContextBudget(4000, reserve=0)
    first, level = budget.fit(system, history, [], count, pinned=0, plan_note=note)
    assert level >= 1
    counted.clear()
    history.append({"role": "assistant", "content": "one more turn"})
    second, level = budget.fit(system, history, [], count, pinned=0, plan_note=note)
    assert level >= 1 and estimate_tokens(second, []) <= 4000
    assert max(counted) < len(history)  # the whole conversation is not counted again
    same = [a is b for a, b in zip(first[1:-2], second[1:-3], strict=False)]
    assert sum(same) >= len(same) // 2  # cut messages are the same objects turn to turn


def _growing_history() -> list[Message]:
    """A mission with planner and weather calls, a recitation after each plan change."""
    history: list[Message] = [{"role": "user", "content": "the mission"}]
    for turn in range(12):
        both = turn % 3 == 0
        history.append(_calls((f"p{turn}", "planner"), *([(f"w{turn}", "weather")] * both)))
        history.append({"role": "tool", "tool_call_id": f"p{turn}", "content": f"done {turn}"})
        if both:
            history.append({"role": "tool", "tool_call_id": f"w{turn}", "content": f"{turn}C"})
        if turn % 4 != 3:  # not every turn changes the plan
            history.append({"role": "user", "content": f"{PLAN_HEADER}\nplan v{turn}"})
    return history


def test_the_view_kept_across_turns_is_the_view_computed_afresh() -> None:
    system: Message = {"role": "system", "content": "s"}
    history = _growing_history()
    kept = ContextBudget(None)
    for end in range(1, len(history) + 1):  # the conversation as it grows, turn by turn
        grown, pinned = history[:end], 0
        view, _ = kept.fit(system, grown, [], estimate_tokens, pinned=pinned, plan_note=None)
        fresh, _ = ContextBudget(None).fit(
            system, grown, [], estimate_tokens, pinned=pinned, plan_note=None
        )
        assert view == fresh, end
    assert valid_pairs(view)
    contents = [m.get("content") for m in view]
    assert sum(1 for c in contents if c and c.startswith(PLAN_HEADER)) == 1
    assert "done 0" not in contents and "0C" in contents and "9C" in contents
    # another conversation, or this one with a message put first: computed afresh
    other = [{"role": "user", "content": "another mission"}, *history[1:5]]
    view, _ = kept.fit(system, other, [], estimate_tokens, pinned=0, plan_note=None)
    assert view[1]["content"] == "another mission"
    first = [{"role": "user", "content": "earlier"}, *history]
    view, _ = kept.fit(system, first, [], estimate_tokens, pinned=1, plan_note=None)
    fresh, _ = ContextBudget(None).fit(system, first, [], estimate_tokens, pinned=1, plan_note=None)
    assert view == fresh and view[1]["content"] == "earlier"


def _turn(turn: int) -> list[Message]:
    """One turn of a long mission: a planner exchange and a recitation every third turn."""
    if turn % 3 == 0:
        return [
            _calls((f"p{turn}", "planner")),
            {"role": "tool", "tool_call_id": f"p{turn}", "content": "ok"},
            {"role": "user", "content": f"{PLAN_HEADER}\nplan v{turn}"},
        ]
    return [
        _calls((f"w{turn}", "weather")),
        {"role": "tool", "tool_call_id": f"w{turn}", "content": f"{turn}: " + "z" * 800},
    ]


def _common_prefix(a: Sequence[Message], b: Sequence[Message]) -> int:
    same = (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y)
    return next(same, min(len(a), len(b)))


def test_a_cut_stays_put_so_the_start_of_the_view_is_the_same_turn_after_turn() -> None:
    system: Message = {"role": "system", "content": "s"}
    note: Message = {"role": "user", "content": f"{PLAN_HEADER}\nthe plan now"}
    history: list[Message] = [{"role": "user", "content": "the mission"}]
    budget = ContextBudget(3000, reserve=0)
    views: list[tuple[list[Message], int]] = []
    for turn in range(120):
        history.extend(_turn(turn))
        view, level = budget.fit(system, history, [], estimate_tokens, pinned=0, plan_note=note)
        assert estimate_tokens(view, []) <= 3000 and valid_pairs(view), turn
        assert view[1]["content"].startswith("the mission")
        assert view[-1] == note or not level
        views.append((view, level))
    cut = [(view, level) for view, level in views if level == 2]
    assert len(cut) > 80 and all(level != 3 for _, level in views)
    kept = [_common_prefix(a, b) for (a, _), (b, _) in itertools.pairwise(cut)]
    moved = [k for k, (view, _) in zip(kept, cut, strict=False) if k < len(view) - 3]
    # the view's start moves only when the kept half has filled up: a few times, not each turn
    assert 3 <= len(moved) <= len(cut) // 5, (len(moved), len(cut))
    # a new cut keeps about half of what fits; the turns it keeps are the latest, in order
    sizes = [estimate_tokens(view, []) for view, _ in cut]
    assert min(sizes) < 2000 and max(sizes) > 2600
    shown = [int(str(m["content"]).split(":")[0]) for m in cut[-1][0] if m.get("role") == "tool"]
    assert len(shown) > 3 and shown == [t for t in range(shown[0], 120) if t % 3]
    assert "ok" not in [m.get("content") for m in cut[-1][0]]  # older planner results left out


def test_a_kept_cut_is_dropped_in_another_conversation_and_after_a_harder_retry() -> None:
    system: Message = {"role": "system", "content": "s"}
    history: list[Message] = [{"role": "user", "content": "the mission"}]
    for turn in range(1, 40, 3):
        history.extend(_turn(turn))
    budget = ContextBudget(1500, reserve=0)
    _, level = budget.fit(system, history, [], estimate_tokens, pinned=0, plan_note=None)
    assert level == 2
    other: list[Message] = [{"role": "user", "content": "another mission"}, *history[1:]]
    again, level = budget.fit(system, other, [], estimate_tokens, pinned=0, plan_note=None)
    fresh, fresh_level = ContextBudget(1500, reserve=0).fit(
        system, other, [], estimate_tokens, pinned=0, plan_note=None
    )
    assert (again, level) == (fresh, fresh_level)
    harder, level = budget.fit(
        system, other, [], estimate_tokens, pinned=0, plan_note=None, harder=True
    )
    assert estimate_tokens(harder, []) <= estimate_tokens([system, *other], []) // 2


async def test_a_counter_that_undercounts_the_provider_is_calibrated_by_its_usage(
    events: Events,
) -> None:
    """The local count is 2/3 of the provider's (tiktoken against another tokenizer)."""
    sizes: list[int] = []

    def fn(messages: list[Message], tools: list[ToolSpec]) -> ModelResponse:
        size = estimate_tokens(messages, tools) * 3 // 2  # the provider's own count
        if size > WINDOW:
            raise ContextWindowExceededError(f"request ({size} tokens) exceeds n_ctx {WINDOW}")
        sizes.append(size)
        n = len(sizes)
        turn = call("big_page", page=n) if n <= 12 else reply("summary: lorem ipsum")
        return dataclasses.replace(turn, usage=Usage(prompt_tokens=size, completion_tokens=9))

    model = FunctionModel(fn, context_window=WINDOW)
    agent = LeanAgent(
        model=model, tools=[FunctionTool(big_page)], plan_first=False, on_event=events
    )
    result = await agent.execute("Read pages 1 to 12 of the document, then summarise them.")
    assert result.status is AgentStatus.COMPLETED, result
    assert events.of("error") == []  # no overflow: the budget learned the ratio on turn 1
    assert max(sizes) <= WINDOW and len(sizes) == 13
    assert max(e.data["compaction"] for e in events.of("llm_call")) >= 1


async def test_a_window_the_provider_names_is_learned_so_later_turns_fit(events: Events) -> None:
    sizes: list[int] = []
    served = 2000  # the server's window, which the model does not know

    def fn(messages: list[Message], tools: list[ToolSpec]) -> ModelResponse:
        size = estimate_tokens(messages, tools)
        sizes.append(size)
        if size > served:
            raise ContextWindowExceededError(
                f"request ({size} tokens) exceeds the available context size ({served} tokens)"
            )
        return call("big_page", page=len(sizes)) if len(sizes) < 14 else reply("read them")

    model = FunctionModel(fn)  # no window known
    agent = LeanAgent(model=model, tools=[FunctionTool(big_page)], on_event=events)
    result = await agent.execute("Read the pages one by one", "learn")
    assert result.status is AgentStatus.COMPLETED, result
    overflows = [s for s in sizes if s > served]
    assert len(overflows) == 1  # learned at the first one: every later view fits
    assert agent.budget.window == served
    assert [e.data["recovered"] for e in events.of("error")] == [True]
