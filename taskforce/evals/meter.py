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

The first five are the *planning* share. These are estimates with the model's tokenizer
(for litellm: tiktoken; other models' tokenizers differ); the report applies the share to
the provider's own usage numbers, which are the totals.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from taskforce.agent.prompts import PLAN_HEADER, REMINDER_HEADER
from taskforce.errors import ProviderError
from taskforce.models.base import Message, Model, ModelResponse, ModelWrapper, ToolSpec, Usage

__all__ = ["PLANNING_PARTS", "MeteredModel", "TokenSplit"]

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


@dataclass
class TokenSplit:
    """Estimated input tokens by part, summed over requests; provider usage beside them."""

    parts: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys([*PLANNING_PARTS, "other"], 0)
    )
    requests: int = 0
    usage: Usage = field(default_factory=Usage)
    estimated_output: int = 0

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
        }


class MeteredModel(ModelWrapper):
    """Wraps a :class:`Model`; measures each request (see the module docstring).

    Args:
        inner: The model that answers.
    """

    def __init__(self, inner: Model) -> None:
        super().__init__(inner)
        self.split = TokenSplit()
        self.failure: ProviderError | None = None
        """The provider's last failure (the agent may have gone on after it)."""
        self._sizes: dict[str, int] = {}

    async def complete(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec]
    ) -> ModelResponse:
        """Measure the request, then let the inner model answer it."""
        self._measure(messages, tools)
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


def _spec_name(spec: ToolSpec) -> str:
    return str((spec.get("function") or {}).get("name", ""))


def _call_name(call: dict[str, Any]) -> str:
    return str((call.get("function") or {}).get("name", ""))
