"""Measure stored runs again without the model, by replaying the replies they recorded.

A stored run keeps its conversation. Given back in order by a scripted model, the model's
replies in it drive the same agent through a fresh world of the same mission, in the same
arm and at the same settings, so the agent sends the very requests the model was sent, and
they can be measured again: exactly, say, with the model's own template and tokenizer
(:class:`~taskforce.evals.prompt_tokens.ServerTokenCounter`), with no model call.

The replies are the model's own: each answered request's ``llm_call`` event keeps the
reply's text as written (the stored turn may hold what the loop made of it: a call read
out of the text, an answer without its "The final answer is:"), and the stored turns keep
its calls. A replay is used only when it gives the stored conversation and verdict back.
One that does not (the code changed since the run) leaves its run as it was, and is
named. The input is counted again with the split (on unchanged code it equals the
provider's stored count); the output total stays the stored one.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from taskforce.evals.arms import Arm
from taskforce.evals.meter import TokenCounter
from taskforce.evals.mission import Suite
from taskforce.evals.record import RunRecord
from taskforce.evals.runner import RunSettings, run_mission
from taskforce.evals.store import ResultStore
from taskforce.models.base import Message, ModelResponse, ToolCall
from taskforce.testing import ScriptedModel

__all__ = ["Remeasured", "remeasure", "remeasure_results"]

_SETTINGS = {f.name for f in dataclasses.fields(RunSettings)}


_LOOP_MADE = ("call_text_", "call_autoplan_")
"""Ids the agent gives the calls it makes itself (a call written as text, a plan it adds)."""


def _native(message: Message) -> list[dict[str, Any]]:
    """The calls in a stored assistant turn that the model made (not the loop)."""
    return [
        c for c in message.get("tool_calls") or [] if not str(c.get("id")).startswith(_LOOP_MADE)
    ]


def _replies(
    messages: Sequence[Message], events: Sequence[Mapping[str, Any]]
) -> list[ModelResponse]:
    """The model's replies that made a stored conversation, in order.

    Each answered request left an ``llm_call`` event with the reply's text as the model
    wrote it (before the loop read a call out of it or rewrote it) and the names of its
    calls; the calls themselves are the model's calls in the stored assistant turns, in
    order. A run stored without those events gives its assistant turns as they are.
    """
    turns = [m for m in messages if m.get("role") == "assistant"]
    answered = [e for e in events if e.get("kind") == "llm_call"]
    if not answered:
        return [ModelResponse(m.get("content"), _calls(m.get("tool_calls") or [])) for m in turns]
    calls = [c for m in turns for c in _native(m)]
    replies, taken = [], 0
    for event in answered:
        names = list(event.get("tool_calls") or [])
        replies.append(
            ModelResponse(event.get("content"), _calls(calls[taken : taken + len(names)]))
        )
        taken += len(names)
    return replies


def _calls(stored: Sequence[Mapping[str, Any]]) -> tuple[ToolCall, ...]:
    """Calls as stored (OpenAI's form) as the model's ToolCalls."""
    return tuple(
        ToolCall(str(c.get("id", "")), c["function"]["name"], c["function"]["arguments"])
        for c in stored
    )


async def remeasure(record: RunRecord, suite: Suite, counter: TokenCounter) -> RunRecord | None:
    """`record` with its tokens measured again from a replay; None if the replay differs.

    Counted exactly, its input is the replay's: the requests as the current code makes them
    (on unchanged code, what the provider reported; a definition or prompt changed since
    the run shows in the count, not only in the share).

    Args:
        record: A stored run of a mission of `suite`.
        suite: The suite its mission is in (the mission's text must be the same).
        counter: Sizes the replayed requests (exactly: the replay's own model cannot
            estimate them as the stored run's model did).
    """
    mission = suite.mission_of(record.key.mission, record.key.mission_hash)
    messages = record.transcript.get("messages")
    if mission is None or not messages:
        return None
    stored = record.meta.get("settings") or {}
    settings = RunSettings(**{k: v for k, v in stored.items() if k in _SETTINGS})
    arm = Arm(record.key.arm, dict(record.meta.get("arm_options") or {}))
    model = ScriptedModel(
        _replies(messages, record.transcript.get("events") or []),
        name=record.key.model,
        context_window=settings.context_window,
    )
    again = await run_mission(mission, arm, model, record.key, settings, counter)
    if again.transcript.get("messages") != messages or again.solved != record.solved:
        return None
    tokens = {**again.tokens, "source": record.tokens.get("source", "estimate")}
    total = int(tokens["estimated_input"])  # exact (a counter is given): the replay's requests
    return dataclasses.replace(
        record,
        tokens=tokens,
        input_tokens=total,
        planning_tokens=round(float(again.tokens["planning_share"]) * total),
        meta={
            **record.meta,
            "remeasured": {
                "at": datetime.now(UTC).isoformat(timespec="seconds"),
                "sizes": tokens["sizes"],
            },
        },
    )


@dataclass
class Remeasured:
    """What :func:`remeasure_results` did: the runs measured again, the ones left as they were."""

    records: list[RunRecord] = field(default_factory=list)
    differing: list[str] = field(default_factory=list)
    """``mission/arm#repeat`` of the runs whose replay did not give them back."""


async def remeasure_results(
    store: ResultStore,
    suite: Suite,
    counter: TokenCounter,
    *,
    arms: Sequence[str] = (),
    missions: Sequence[str] = (),
    on_progress: Callable[[int, int, RunRecord], Any] | None = None,
) -> Remeasured:
    """Replay the latest stored runs of `suite` and store them measured again.

    Args:
        store: The results file; each run measured again is appended (the latest wins).
        suite: The suite the runs are of (only its runs are replayed).
        counter: Sizes the replayed requests exactly.
        arms: Only these arm names (default: all).
        missions: Only these mission ids (default: all).
        on_progress: Called after each run with (done, total, the stored record).
    """
    chosen = store.latest_of(suite.name, arms, missions)
    outcome = Remeasured()
    for done, record in enumerate(chosen, start=1):
        again = await remeasure(record, suite, counter)
        if again is None:
            outcome.differing.append(record.key.label)
        else:
            store.add(again)
            outcome.records.append(again)
        if on_progress is not None:
            on_progress(done, len(chosen), record)
    return outcome
