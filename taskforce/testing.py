"""Test models for your own tests: decide what the "model" says, run everything else for real.

Like pydantic-ai's ``FunctionModel``/``TestModel``: no network, no provider, fully
deterministic. Build replies with :func:`reply`, :func:`call` and :func:`calls`::

    from taskforce.testing import ScriptedModel, call, calls, reply

    model = ScriptedModel([
        call("planner", action="create_plan", tasks=["Look up", "Answer"]),
        calls(call("weather", city="Oslo"), call("weather", city="Rome")),
        call("planner", action="mark_done", step_index=[1, 2]),
        reply("Oslo is colder than Rome."),
    ])
    result = await LeanAgent(model=model, tools=[weather]).execute("Compare ...")
    model.requests[0].messages  # every request is recorded

Or decide per request with a function of the conversation::

    def fn(messages, tools):
        return reply("done") if messages[-1]["role"] == "tool" else call("search", q="x")

    model = FunctionModel(fn)

The agent questions a call whose figures or e-mail addresses it never gave the model
(``LeanAgent(question_guesses=True)``, the default): it answers ``unsupported_value`` and
runs the same call when it is made again. A script whose values the model "worked out"
itself can leave those repeats to :class:`Confirming`::

    model = Confirming(ScriptedModel([call("transfer", amount=1_250), reply("Moved.")]))
"""

from __future__ import annotations

import copy
import inspect
import json
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from taskforce.models.base import (
    Message,
    ModelResponse,
    ModelWrapper,
    NoCalls,
    ToolCall,
    ToolSpec,
    Usage,
)

__all__ = [
    "Confirming",
    "FunctionModel",
    "ModelRequest",
    "ScriptExhaustedError",
    "ScriptedModel",
    "call",
    "calls",
    "estimate_tokens",
    "raw_call",
    "reply",
]

ModelFunction = Callable[
    [list[Message], list[ToolSpec]], "ModelResponse | Awaitable[ModelResponse]"
]
"""``fn(messages, tools)`` returning a :class:`ModelResponse` (or an awaitable of one)."""


class ScriptExhaustedError(AssertionError):
    """A :class:`ScriptedModel` was asked more often than its script has replies."""


def reply(text: str, *, prompt_tokens: int = 0, completion_tokens: int = 0) -> ModelResponse:
    """A final text answer (no tool calls)."""
    return ModelResponse(content=text, usage=Usage(prompt_tokens, completion_tokens))


def call(
    name: str, /, *, id: str = "", content: str | None = None, **arguments: Any
) -> ModelResponse:
    """A turn with one tool call ``name(**arguments)``; its id is assigned when replayed."""
    return ModelResponse(content=content, tool_calls=(ToolCall(id, name, json.dumps(arguments)),))


def raw_call(name: str, arguments: str, *, id: str = "") -> ModelResponse:
    """A turn with one tool call whose arguments text is sent verbatim (e.g. broken JSON)."""
    return ModelResponse(tool_calls=(ToolCall(id, name, arguments),))


def calls(
    *turns: ModelResponse,
    content: str | None = None,
    prompt_tokens: int = 0,
    completion_tokens: int = 0,
) -> ModelResponse:
    """Several tool calls in one turn: the calls of `turns` (built with :func:`call`)."""
    merged = tuple(c for t in turns for c in t.tool_calls)
    return ModelResponse(content, merged, Usage(prompt_tokens, completion_tokens))


def estimate_tokens(messages: Sequence[Message], tools: Sequence[ToolSpec]) -> int:
    """About one token per four characters of the JSON of `messages` and `tools`."""
    text = json.dumps(list(messages), default=str) + json.dumps(list(tools), default=str)
    return len(text) // 4 + 1


@dataclass(frozen=True)
class ModelRequest:
    """What a test model received: deep copies of the messages and tool definitions."""

    messages: list[Message]
    tools: list[ToolSpec]
    """As the model got them: a :class:`~taskforce.models.base.NoCalls` list when no call
    was allowed."""

    @property
    def tool_names(self) -> list[str]:
        """Names of the tools offered in this request."""
        return [t["function"]["name"] for t in self.tools]

    @property
    def no_calls(self) -> bool:
        """The tools were shown with no call allowed: the loop asked for the answer in words."""
        return isinstance(self.tools, NoCalls)


@dataclass
class _Base:
    model_name: str = "test"
    window: int | None = None
    requests: list[ModelRequest] = field(default_factory=list)
    _ids: int = 0

    @property
    def name(self) -> str:
        """The model name."""
        return self.model_name

    @property
    def context_window(self) -> int | None:
        """The context size given at construction (None: unknown)."""
        return self.window

    def count_tokens(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> int:
        """A rough estimate (see :func:`estimate_tokens`)."""
        return estimate_tokens(messages, tools)

    def _record(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> ModelRequest:
        shown = tools if isinstance(tools, NoCalls) else list(tools)
        request = ModelRequest(copy.deepcopy(list(messages)), copy.deepcopy(shown))
        self.requests.append(request)
        return request

    def _with_ids(self, response: ModelResponse) -> ModelResponse:
        fixed = []
        for c in response.tool_calls:
            self._ids += 1
            fixed.append(c if c.id else replace(c, id=f"call_{self._ids}"))
        return replace(response, tool_calls=tuple(fixed))


class FunctionModel(_Base):
    """A model whose every answer is computed by ``fn(messages, tools)`` (sync or async).

    Args:
        fn: Gets copies of the messages and tool definitions; returns a ModelResponse.
            It may raise (e.g. ``ProviderError``) to simulate a failing provider.
        name: The model name.
        context_window: The context size the agent should budget for.
    """

    def __init__(
        self, fn: ModelFunction, *, name: str = "function", context_window: int | None = None
    ) -> None:
        super().__init__(model_name=name, window=context_window)
        self._fn = fn

    async def complete(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec]
    ) -> ModelResponse:
        """Record the request and answer with ``fn``."""
        request = self._record(messages, tools)
        outcome = self._fn(copy.deepcopy(request.messages), copy.deepcopy(request.tools))
        if inspect.isawaitable(outcome):
            outcome = await outcome
        if not isinstance(outcome, ModelResponse):
            raise TypeError(f"FunctionModel fn must return a ModelResponse, not {outcome!r}")
        return self._with_ids(outcome)


ScriptItem = ModelResponse | BaseException | ModelFunction
"""A reply, an exception to raise, or a function computing the reply."""


class ScriptedModel(_Base):
    """A model replaying a script: one item per request, in order.

    Args:
        script: Replies (:func:`reply`, :func:`call`, :func:`calls`), exceptions to raise
            (e.g. a ``ProviderError``), or functions ``fn(messages, tools)``.
        name: The model name.
        context_window: The context size the agent should budget for.

    Raises:
        ScriptExhaustedError: (from ``complete``) when asked after the script ran out.
    """

    def __init__(
        self,
        script: Iterable[ScriptItem] = (),
        *,
        name: str = "scripted",
        context_window: int | None = None,
    ) -> None:
        super().__init__(model_name=name, window=context_window)
        self._script: list[ScriptItem] = list(script)
        self._position = 0

    def extend(self, *items: ScriptItem) -> ScriptedModel:
        """Append items to the script."""
        self._script.extend(items)
        return self

    @property
    def remaining(self) -> int:
        """Items not replayed yet."""
        return len(self._script) - self._position

    async def complete(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec]
    ) -> ModelResponse:
        """Record the request and replay the next item."""
        request = self._record(messages, tools)
        if self._position >= len(self._script):
            raise ScriptExhaustedError(
                f"ScriptedModel: request {len(self.requests)} but the script has only "
                f"{len(self._script)} item(s); last message: {request.messages[-1:]!r:.300}"
            )
        item = self._script[self._position]
        self._position += 1
        if isinstance(item, BaseException):
            raise item
        if callable(item):
            outcome = item(copy.deepcopy(request.messages), copy.deepcopy(request.tools))
            item = await outcome if inspect.isawaitable(outcome) else outcome
        if not isinstance(item, ModelResponse):
            raise TypeError(f"ScriptedModel items must give a ModelResponse, not {item!r}")
        return self._with_ids(item)


class Confirming(ModelWrapper):
    """Makes the calls the agent questioned for an unsupported value again, then goes on.

    A model that worked a value out itself answers the agent's ``unsupported_value`` by
    making the same call again (it runs then); this wrapper does that for `inner`'s
    script, so the script holds only the model's own decisions.
    """

    async def complete(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec]
    ) -> ModelResponse:
        """The last turn's questioned calls again, or `inner`'s reply."""
        again = questioned(messages)
        if again:
            return ModelResponse(tool_calls=again)
        return await self.inner.complete(messages, tools)


def questioned(messages: Sequence[Message]) -> tuple[ToolCall, ...]:
    """The last turn's calls the agent answered ``unsupported_value`` (not run)."""
    last = max((i for i, m in enumerate(messages) if m.get("role") == "assistant"), default=-1)
    if last < 0:
        return ()
    asked = set()
    for message in messages[last + 1 :]:
        if message.get("role") != "tool":
            continue
        try:
            result = json.loads(str(message.get("content")))
        except ValueError:
            continue
        if isinstance(result, dict) and result.get("error_type") == "unsupported_value":
            asked.add(message.get("tool_call_id"))
    return tuple(
        ToolCall(f"{c['id']}_again", c["function"]["name"], c["function"]["arguments"])
        for c in messages[last].get("tool_calls") or ()
        if c.get("id") in asked
    )
