"""A Model wrapper that measures where the input tokens go.

Every ``complete(messages, tools)`` request passes through :class:`MeteredModel`, which
sizes each part of it with the model's own ``count_tokens`` and sorts it:

* ``planner_tool``: the planner's tool definition;
* ``planner_calls``: the assistant's calls of ``planner``;
* ``planner_results``: the tool results answering them;
* ``recitations``: the ``[Plan update]`` messages that show the plan;
* ``plan_reminders``: reminders about the plan (plan first, open plan steps; not the
  loop's other reminders, e.g. about repeated calls, even where they name the planner);
* ``other``: everything else (system prompt, mission, other tools, their calls and results).

The first five are the *planning* share. By default these are estimates with the model's
tokenizer (for litellm: tiktoken on OpenAI's function format; other models' templates and
tokenizers differ), each part sized on its own; the report applies the share to the
provider's own usage numbers, which are the totals.

Given a ``counter`` (e.g. :class:`~taskforce.evals.prompt_tokens.ServerTokenCounter`,
the model's own template and tokenizer), the sizes are exact: a part is what the request
loses without it (the whole request counted, then counted again without the planner's
definition, without the planner's calls and results, without the recitations, without the
plan reminders); ``other`` is the rest. The planner's calls and results are left out
together (a call without its result is no conversation) and their size is shared between
the two parts as their estimates are. A cut the server refuses though it counted the whole
request (a chat template may reject the conversation left) is sized by its estimate.

Given a counter that also gives a request's token ids (:class:`PrefixCounter`), the meter
counts the *fresh* input too: the tokens of a request past the longest prefix it shares
with the run's previous request, which is what a prompt cache (llama.cpp's, per slot; a
provider's prefix cache) still has to process. Its planning part is what planning adds to
it: the fresh input less the fresh input of the same requests without their planning parts
(so a change of the tools offered, which changes the prompt from the tools on, counts
there). That is an ideal cache, one per run: a server that serves several runs from one
slot, or evicts, processes more.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from taskforce.agent.prompts import PLAN_HEADER, REMINDER_HEADER
from taskforce.errors import ConfigurationError, ProviderError
from taskforce.models.base import Message, Model, ModelResponse, ModelWrapper, ToolSpec, Usage

__all__ = ["PLANNING_PARTS", "MeteredModel", "PrefixCounter", "TokenCounter", "TokenSplit"]

PLANNER = "planner"
_PLAN_WORD = re.compile(r"\bplan\b|create_plan", re.IGNORECASE)
"""A reminder about the plan (plan first, open steps), not one that merely names the planner."""
PLANNING_PARTS = (
    "planner_tool",
    "planner_calls",
    "planner_results",
    "recitations",
    "plan_reminders",
)
"""The parts of a request counted as planning."""


_GROUPS: tuple[tuple[str, ...], ...] = (
    ("planner_calls", "planner_results"),
    ("recitations",),
    ("plan_reminders",),
)
"""The message parts left out together to size them exactly."""


class TokenCounter(Protocol):
    """Sizes a whole request exactly (the model's own template and tokenizer)."""

    async def count(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> int:
        """The prompt tokens of a request of `messages` offering `tools`."""
        ...


@runtime_checkable
class PrefixCounter(TokenCounter, Protocol):
    """A counter that also gives a request's prompt as token ids (to find shared prefixes)."""

    async def tokens(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> list[int]:
        """The prompt of a request of `messages` offering `tools`, as token ids."""
        ...


@dataclass
class TokenSplit:
    """Input tokens by part, summed over requests; provider usage beside them.

    Estimates, or exact sizes when the meter was given a counter.
    """

    parts: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys([*PLANNING_PARTS, "other"], 0)
    )
    requests: int = 0
    usage: Usage = field(default_factory=Usage)
    estimated_output: int = 0
    fresh_input: int | None = None
    """Input past the prefix shared with the run's previous request (None: not counted)."""
    fresh_planning: int = 0
    """What planning adds to :attr:`fresh_input`."""

    @property
    def estimated_input(self) -> int:
        """All parts added up."""
        return sum(self.parts.values())

    @property
    def planning(self) -> int:
        """The planning parts added up."""
        return sum(self.parts[p] for p in PLANNING_PARTS)

    @property
    def planning_share(self) -> float:
        """Planning tokens / input tokens (0 when nothing was sent)."""
        return self.planning / self.estimated_input if self.estimated_input else 0.0

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready numbers."""
        return {
            "parts": dict(self.parts),
            "requests": self.requests,
            "estimated_input": self.estimated_input,
            "estimated_output": self.estimated_output,
            "planning_share": round(self.planning_share, 4),
        } | (
            {}
            if self.fresh_input is None
            else {"fresh_input": self.fresh_input, "fresh_planning": self.fresh_planning}
        )


class MeteredModel(ModelWrapper):
    """Wraps a :class:`Model`; measures each request (see the module docstring).

    Args:
        inner: The model that answers.
        counter: Sizes requests exactly (parts by what the request loses without them);
            None: the inner model's per-part estimates.
    """

    def __init__(self, inner: Model, counter: TokenCounter | None = None) -> None:
        super().__init__(inner)
        self.counter = counter
        self.split = TokenSplit()
        self.failure: ProviderError | None = None
        """The provider's last failure (the agent may have gone on after it)."""
        self._sizes: dict[str, int] = {}
        self._before: tuple[list[int], list[int] | None] | None = None
        """The previous request's token ids, whole and without its planning parts."""

    async def complete(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec]
    ) -> ModelResponse:
        """Measure the request, then let the inner model answer it."""
        if self.counter is None:
            self._measure(messages, tools)
        else:
            try:
                await self._measure_exactly(self.counter, messages, tools)
            except (ProviderError, ConfigurationError) as exc:  # the counter's, not the model's
                failure = exc if isinstance(exc, ProviderError) else ProviderError(str(exc))
                self.failure = failure
                raise failure from None
        try:
            response = await self.inner.complete(messages, tools)
        except ProviderError as exc:
            self.failure = exc
            raise
        self.split.usage += response.usage
        self.split.estimated_output += self.inner.count_tokens([response.to_message()], [])
        return response

    def _measure(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> None:
        parts = self.split.parts
        self.split.requests += 1
        planner_specs = [t for t in tools if _spec_name(t) == PLANNER]
        others = [t for t in tools if _spec_name(t) != PLANNER]
        parts["planner_tool"] += self._count([], planner_specs) if planner_specs else 0
        parts["other"] += self._count([], others) if others else 0
        planner_ids: set[str] = set()
        for message in messages:
            for part, size in self._classify(message, planner_ids):
                parts[part] += size

    async def _measure_exactly(
        self, counter: TokenCounter, messages: Sequence[Message], tools: Sequence[ToolSpec]
    ) -> None:
        self.split.requests += 1
        found: dict[str, int] = dict.fromkeys(PLANNING_PARTS, 0)  # estimates: which, how big
        planner_ids: set[str] = set()
        labels = []
        for message in messages:
            sized = self._classify(message, planner_ids)
            labels.append({part for part, _ in sized})
            for part, size in sized:
                found[part] = found.get(part, 0) + size
        exact = dict.fromkeys(PLANNING_PARTS, 0)
        others = [t for t in tools if _spec_name(t) != PLANNER]
        if isinstance(counter, PrefixCounter):
            ids = await counter.tokens(messages, tools)
            full = len(ids)
            bare = _without(messages, labels, set(PLANNING_PARTS))
            await self._count_fresh(counter, ids, bare, others)
        else:
            full = await counter.count(messages, tools)
        if len(others) < len(tools):
            lost = await _lost(counter, full, messages, others)
            if lost is None:  # refused: the definition's estimate
                lost = self._count([], [t for t in tools if _spec_name(t) == PLANNER])
            exact["planner_tool"] = lost
        for group in _GROUPS:
            if any(found[p] for p in group):
                kept = _without(messages, labels, set(group))
                estimated = sum(found[p] for p in group)
                lost = await _lost(counter, full, kept, tools)
                lost = estimated if lost is None else lost
                for part in group:
                    exact[part] = round(lost * found[part] / estimated)
        parts = self.split.parts
        for part, size in exact.items():
            parts[part] += max(0, size)
        parts["other"] += max(0, full - sum(max(0, size) for size in exact.values()))

    async def _count_fresh(
        self,
        counter: PrefixCounter,
        ids: list[int],
        bare: Sequence[Message],
        tools: Sequence[ToolSpec],
    ) -> None:
        """Add the request's fresh input (`ids`: the whole request) and planning's part of it.

        `bare` offering `tools`: the request without its planning parts. A bare request the
        server refuses (a template may reject what is left) adds no planning, and the next
        request's bare form is then compared with nothing (all of it fresh).
        """
        try:
            without: list[int] | None = await counter.tokens(bare, tools)
        except ProviderError as exc:
            if exc.retryable:
                raise
            without = None
        whole_before, bare_before = self._before or ([], None)
        fresh = len(ids) - _shared(ids, whole_before)
        split = self.split
        split.fresh_input = (split.fresh_input or 0) + fresh
        if without is not None:
            fresh_bare = len(without) - _shared(without, bare_before or [])
            split.fresh_planning += max(0, fresh - fresh_bare)
        self._before = (ids, without)

    def _count(self, messages: list[Message], tools: Sequence[ToolSpec]) -> int:
        key = json.dumps([messages, list(tools)], sort_keys=True, default=str)
        if key not in self._sizes:
            self._sizes[key] = self.inner.count_tokens(messages, tools)
        return self._sizes[key]

    def _classify(self, message: Message, planner_ids: set[str]) -> list[tuple[str, int]]:
        role = message.get("role")
        content = message.get("content")
        text = content if isinstance(content, str) else ""
        size = self._count([message], [])
        if role == "assistant" and message.get("tool_calls"):
            calls = message["tool_calls"]
            mine = [c for c in calls if _call_name(c) == PLANNER]
            planner_ids.update(str(c.get("id")) for c in mine)
            if mine and len(mine) == len(calls):
                return [("planner_calls", size)]
            if mine:  # a mixed turn: only the planner's calls are planning
                planning = min(size, self._count([{"role": "assistant", "tool_calls": mine}], []))
                return [("planner_calls", planning), ("other", size - planning)]
        if role == "tool" and str(message.get("tool_call_id")) in planner_ids:
            return [("planner_results", size)]
        if role == "user" and text.startswith(PLAN_HEADER):
            return [("recitations", size)]
        if role == "user" and text.startswith(REMINDER_HEADER) and _PLAN_WORD.search(text):
            return [("plan_reminders", size)]
        return [("other", size)]


async def _lost(
    counter: TokenCounter, full: int, kept: Sequence[Message], tools: Sequence[ToolSpec]
) -> int | None:
    """What a request of `full` tokens loses when it is cut to `kept` and `tools`.

    None when the server refuses the cut request though it counted the whole one (the
    caller falls back to the estimate): a cut can make a conversation its chat template
    rejects (llama.cpp's Qwen template refuses two assistant messages at the end, as when
    the finish reminders between two answers are left out). A failure worth retrying (the
    server gone) is still raised.
    """
    try:
        return full - await counter.count(kept, tools)
    except ProviderError as exc:
        if exc.retryable:
            raise
        return None


def _without(messages: Sequence[Message], labels: list[set[str]], parts: set[str]) -> list[Message]:
    """`messages` without the `parts` (a mixed turn keeps its other tools' calls)."""
    kept: list[Message] = []
    for message, found in zip(messages, labels, strict=True):
        if not found & parts:
            kept.append(message)
        elif found - parts:  # a mixed turn: only the planner's calls go
            calls = [c for c in message.get("tool_calls") or [] if _call_name(c) != PLANNER]
            kept.append({**message, "tool_calls": calls})
    return kept


def _shared(a: Sequence[int], b: Sequence[int]) -> int:
    """The length of the longest prefix `a` and `b` share."""
    size = min(len(a), len(b))
    for i in range(size):
        if a[i] != b[i]:
            return i
    return size


def _spec_name(spec: ToolSpec) -> str:
    return str((spec.get("function") or {}).get("name", ""))


def _call_name(call: dict[str, Any]) -> str:
    return str((call.get("function") or {}).get("name", ""))
