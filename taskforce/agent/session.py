"""A session's persistence: state and conversation, saved through a store after each step.

:class:`Session` keeps the conversation in memory and writes new messages together with
the session state in one ``save_state`` call, so a crash loses at most the step in flight.
Known secrets are redacted from every message as it enters the conversation, so neither the
database nor the model ever sees them, and unencodable text (a lone surrogate from a
model's half emoji) becomes U+FFFD (:func:`taskforce.plan.scrub`).
Without a state manager the agent uses a :class:`~taskforce.store.MemoryStore` of its own;
either way it talks to a :class:`~taskforce.store.SessionStore`. A session read
back is repaired: an interrupted turn's unanswered tool calls get an "interrupted" result,
and messages cut off from their turn by the load limit are dropped. A call whose arguments
are not JSON is stored as the model sent it but sent back to the model as ``{}``
(:func:`wire_arguments`).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from typing import Any

from taskforce.agent import prompts
from taskforce.agent.events import Redactor
from taskforce.models.base import Message
from taskforce.plan import Plan, Step, scrub_data
from taskforce.plan.state import step_state
from taskforce.store import SessionStore
from taskforce.tools.base import error_result

_WIRE_KEYS = ("role", "content", "tool_calls", "tool_call_id", "name")
MISSION_KEY = "mission"
"""The session's mission: its first request, kept as its title by later requests."""
REQUEST_KEY = "request"
"""The request the session works on now (a later one than the mission, or the mission)."""


def current_request(state: Mapping[str, Any]) -> str:
    """The request a stored session last worked on ("" when it has none)."""
    for key in (REQUEST_KEY, MISSION_KEY):
        value = state.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return ""


class Session:
    """One session's state and conversation, and when they were last saved."""

    def __init__(self, store: SessionStore, session_id: str, redactor: Redactor) -> None:
        self.store = store
        self.session_id = session_id
        self.history: list[Message] = []
        self.state: dict[str, Any] = {}
        self.version: int | None = None
        self._pending: list[Message] = []
        self._redactor = redactor
        self._lock = asyncio.Lock()
        self._plan: tuple[Plan, dict[str, Any]] | None = None  # the last plan and its state
        self._clean: dict[int, Step] = {}  # plan steps seen to hold no secret, by identity

    async def open(self, history_limit: int) -> bool:
        """Load the stored session, if any; True when it existed."""
        stored = await self.store.load_state(self.session_id)
        if stored is None:
            return False
        self.version = stored.pop("version", None)
        self.state = stored
        messages = await self.store.load_messages(self.session_id, limit=history_limit)
        self.history = _trim([_wired({k: m[k] for k in _WIRE_KEYS if k in m}) for m in messages])
        pending = stored.get("pending_approval")
        waiting = pending.get("tool_call_id") if isinstance(pending, dict) else None
        self.add(*_interrupted_results(self.history, waiting))
        return True

    def add(self, *messages: Message) -> None:
        """Append messages (secrets redacted) to the conversation, saved by :meth:`save`."""
        clean = [scrub_data(self._redactor.data(m)) for m in messages]
        self.history.extend(map(_wired, clean))  # what the model is sent again
        self._pending.extend(clean)  # what is stored: as the model sent it

    def discard_unsaved(self) -> None:
        """Forget messages not saved yet (they could not be stored); they stay in memory."""
        self._pending = []

    def prepend(self, message: Message) -> None:
        """Put a message first in memory only (it is already stored, or must not be)."""
        self.history.insert(0, message)

    def take_request(self, request: str) -> None:
        """Work on `request` now; the first request of a session stays its mission (title).

        A new request extends the session: the mission is not replaced, so ``sessions``
        and exports keep the session's title (the plan keeps its finished steps).
        """
        if not current_request(self.state):
            self.state[MISSION_KEY] = request
        self.state[REQUEST_KEY] = request

    def plan_state(self, plan: Plan) -> dict[str, Any]:
        """`plan` as the stored JSON state: converted once per plan value."""
        if self._plan is None or self._plan[0] is not plan:
            self._plan = (plan, plan.to_state())
        return self._plan[1]

    def _storable(self, plan: Plan) -> Plan | dict[str, Any]:
        """`plan` as handed to the store: the value, or its redacted state.

        The value itself, unless it holds a secret: the store then encodes only its new
        and changed steps (steps are immutable), and only those are checked for secrets.
        """
        if not self._redactor.active:
            return plan
        clean: dict[int, Step] = {}
        for step in plan.steps:  # only new and changed steps are looked at
            if self._clean.get(id(step)) is not step:
                state = step_state(step)
                if self._redactor.data(state) != state:
                    return self._redactor.data(self.plan_state(plan))
            clean[id(step)] = step
        extra = dict(plan.extra)
        if self._redactor.data(extra) != extra:
            return self._redactor.data(self.plan_state(plan))
        self._clean = clean
        return plan

    async def save(self, *, events: Sequence[dict[str, Any]] = (), **fields: Any) -> None:
        """Write the state (updated with `fields`), the new messages and `events` at once.

        A :class:`Plan` given as ``plan`` is passed to the store as is (its text is clean
        already; the store keeps it as its JSON state), or as its redacted state.
        """
        fields = {k: v if k == "plan" else scrub_data(v) for k, v in fields.items()}
        if isinstance(fields.get("plan"), Plan):
            fields["plan"] = self._storable(fields["plan"])
        async with self._lock:
            self.state.update(fields)
            pending, self._pending = self._pending, []
            extra = {"events": self._redactor.data(list(events))} if events else {}
            try:
                self.version = await self.store.save_state(
                    self.session_id,
                    self._redactor.data(self.state),
                    expected_version=self.version or 0,
                    messages=pending,
                    **extra,
                )
            except BaseException:
                self._pending[:0] = pending  # not saved: keep them for the next try
                raise


def wire_arguments(text: str) -> str:
    """`text` when it is JSON, else ``"{}"``: the arguments of a call sent back to a model.

    Providers parse the arguments of the calls in a conversation: llama.cpp's server
    answers HTTP 500 to every request that holds one it cannot parse, and litellm's
    conversions for other providers fail. A malformed call (or one cut off at the output
    limit, or the marker left for arguments too large to keep) already got an error result
    quoting what was sent, so the model loses nothing by seeing ``{}`` in its place.
    """
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return "{}"
    return text


def _wired(message: Message) -> Message:
    """`message` with its calls' arguments as :func:`wire_arguments` sends them.

    Itself when they all are JSON. The session keeps the call as the model sent it in the
    store (and in transcripts and replays); the conversation it sends again holds ``{}``.
    """
    calls = message.get("tool_calls")
    if not isinstance(calls, list):
        return message
    fixed, changed = [], False
    for call in calls:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):
            arguments = function.get("arguments")
            if isinstance(arguments, str) and (wired := wire_arguments(arguments)) != arguments:
                call, changed = {**call, "function": {**function, "arguments": wired}}, True
        fixed.append(call)
    return {**message, "tool_calls": fixed} if changed else message


def _trim(messages: list[Message]) -> list[Message]:
    """Drop leading messages cut off from their turn, and tool results with no call."""
    start = next((i for i, m in enumerate(messages) if m.get("role") == "user"), len(messages))
    kept = messages[start:]
    called = {c.get("id") for m in kept for c in m.get("tool_calls") or []}
    return [m for m in kept if m.get("role") != "tool" or m.get("tool_call_id") in called]


def _interrupted_results(history: Sequence[Message], waiting: Any = None) -> list[Message]:
    """Results for tool calls that never got one (the run stopped mid-turn).

    The call `waiting` for approval is left unanswered: its result comes on resume.
    """
    answered = {m.get("tool_call_id") for m in history if m.get("role") == "tool"}
    if waiting:
        answered.add(waiting)
    missing: list[Message] = []
    for message in history:
        for call in message.get("tool_calls") or []:
            if call.get("id") not in answered:
                content = json.dumps(error_result(prompts.INTERRUPTED, "interrupted"))
                missing.append({"role": "tool", "tool_call_id": call.get("id"), "content": content})
    return missing
