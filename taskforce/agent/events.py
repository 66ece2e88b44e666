"""Events the loop emits for UIs, and the redaction that keeps secrets out of them.

The loop renders nothing: it hands :class:`AgentEvent` values to an ``on_event`` callback
(sync or async). Every event payload, like everything the loop persists, first passes
through a :class:`Redactor` so API keys never reach a UI, a log or the database.
"""

from __future__ import annotations

import enum
import inspect
import logging
import os
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

log = logging.getLogger("taskforce.agent")

_SECRET_ENV = re.compile(r"(API_?KEY|KEY|TOKEN|SECRET|PASSWORD|PASSWD)$", re.IGNORECASE)
_MIN_SECRET = 8
REDACTED = "[REDACTED]"

T = TypeVar("T")


class EventKind(enum.StrEnum):
    """What happened."""

    LLM_CALL = "llm_call"
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"
    PLAN_UPDATED = "plan_updated"
    FINAL_ANSWER = "final_answer"
    ERROR = "error"
    APPROVAL_REQUIRED = "approval_required"
    """A call waits for a human: the run pauses (data: name, preview, step, ...)."""
    RESUMED = "resumed"
    """A paused run continues after a decision (data: approved, note, name)."""


@dataclass(frozen=True, slots=True)
class AgentEvent:
    """One event: its kind, the session it belongs to and a JSON-friendly payload."""

    kind: EventKind
    data: dict[str, Any] = field(default_factory=dict)
    session_id: str | None = None


EventCallback = Callable[[AgentEvent], Awaitable[None] | None]
"""An ``on_event`` handler: a plain or async function taking one :class:`AgentEvent`."""


class Redactor:
    """Replaces known secret values with ``[REDACTED]`` in strings and JSON-like data.

    Secrets are the values given explicitly (an ``api_key``, auth headers) plus the values
    of environment variables whose names look secret (``*_API_KEY``, ``*TOKEN*``, ...).
    """

    def __init__(self, secrets: Iterable[str | None] = (), env: Mapping[str, str] | None = None):
        env = os.environ if env is None else env
        found = {s for s in secrets if s}
        found |= {v for k, v in env.items() if _SECRET_ENV.search(k)}
        self._secrets = sorted((s for s in found if len(s) >= _MIN_SECRET), key=len, reverse=True)

    @property
    def active(self) -> bool:
        """Whether there is any secret to replace."""
        return bool(self._secrets)

    def text(self, value: str) -> str:
        """`value` with every secret replaced."""
        for secret in self._secrets:
            if secret in value:
                value = value.replace(secret, REDACTED)
        return value

    def data(self, value: T) -> T:
        """A copy of JSON-like `value` (dicts, lists, strings) with secrets replaced."""
        if not self._secrets:
            return value
        return self._walk(value)  # type: ignore[no-any-return]

    def _walk(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {self._walk(k): self._walk(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return type(value)(self._walk(v) for v in value)
        return value


class EventSink:
    """Delivers events to an optional callback; a failing callback never stops the run."""

    def __init__(self, callback: EventCallback | None, redactor: Redactor) -> None:
        self._callbacks = [callback] if callback is not None else []
        self._redactor = redactor

    def with_callback(self, callback: EventCallback | None) -> EventSink:
        """A sink that also delivers to `callback` (for one run)."""
        sink = EventSink(None, self._redactor)
        sink._callbacks = [*self._callbacks, *([callback] if callback is not None else [])]
        return sink

    async def emit(self, kind: EventKind, session_id: str, **data: Any) -> None:
        """Send one event (redacted) to the callbacks, if any."""
        if not self._callbacks:
            return
        event = AgentEvent(kind, self._redactor.data(data), session_id)
        for callback in self._callbacks:
            try:
                outcome = callback(event)
                if inspect.isawaitable(outcome):
                    await outcome
            except Exception as exc:  # a UI bug must not kill the run
                log.warning(
                    "on_event handler failed on %s: %s", kind.value, self._redactor.text(str(exc))
                )
