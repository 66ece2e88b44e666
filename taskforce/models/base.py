"""The model boundary: what the agent loop sends to a model and what it gets back.

Pure data, a Protocol and a delegating base for wrappers (:class:`ModelWrapper`); no
provider code. `LiteLLMModel`, the offline model and the test models all satisfy
:class:`Model`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

Message = dict[str, Any]
"""A chat message in OpenAI format (`role`, `content`, `tool_calls`, `tool_call_id`)."""

ToolSpec = dict[str, Any]
"""A tool definition in OpenAI function-calling format (`{"type": "function", ...}`)."""


class NoCalls(list[ToolSpec]):
    """Tools a request shows while its model must answer in words, calling none of them.

    The loop asks so for the final answer of a run with a plan of its own: the tools stay in
    the prompt, which then begins as the requests before it did, so a prompt cache (a
    provider's, llama.cpp's) keeps what it had; leaving them out would make the whole prompt
    new twice, for that request and for the next one. A provider is asked for no call
    (``tool_choice="none"``); a model that cannot be told so may still call, and the loop
    answers such calls as calls made when told to answer.
    """

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call requested by the model. `arguments` is the raw JSON text it sent."""

    id: str
    name: str
    arguments: str

    def to_message(self) -> dict[str, Any]:
        """The OpenAI wire form used inside an assistant message's `tool_calls`."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts reported by the provider (0 when unknown)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
        )


@dataclass(frozen=True, slots=True)
class ModelResponse:
    """One assistant turn: optional text, zero or more tool calls, usage."""

    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = field(default_factory=Usage)
    cut_off: bool = False
    """The provider stopped the reply at its output limit (``finish_reason`` "length")."""

    def to_message(self) -> Message:
        """The assistant message to append to the conversation."""
        msg: Message = {"role": "assistant", "content": self.content}
        if self.tool_calls:
            msg["tool_calls"] = [c.to_message() for c in self.tool_calls]
        return msg


@runtime_checkable
class Model(Protocol):
    """Anything that can answer a conversation with text and/or tool calls."""

    @property
    def name(self) -> str:
        """A human-readable model name (e.g. `openai/gpt-4o-mini`, `offline`)."""
        ...

    @property
    def context_window(self) -> int | None:
        """The model's context size in tokens, or None when unknown."""
        ...

    async def complete(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec]
    ) -> ModelResponse:
        """Answer the conversation. Raises `ProviderError` when the provider fails."""
        ...

    def count_tokens(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> int:
        """Estimate the prompt size in tokens of `messages` plus `tools`."""
        ...


class ModelWrapper:
    """A model that answers through `inner`: its name, context window and token count.

    Subclasses change how a request is asked or what is recorded of it by overriding
    :meth:`complete`; this one passes the request on unchanged.
    """

    def __init__(self, inner: Model) -> None:
        self.inner = inner

    @property
    def name(self) -> str:
        """The inner model's name (runs and records go by it)."""
        return self.inner.name

    @property
    def context_window(self) -> int | None:
        """The inner model's context size."""
        return self.inner.context_window

    def count_tokens(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> int:
        """The inner model's estimate."""
        return self.inner.count_tokens(messages, tools)

    async def complete(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec]
    ) -> ModelResponse:
        """The inner model's answer."""
        return await self.inner.complete(messages, tools)
