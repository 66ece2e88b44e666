"""What every adapter shares: one planner per session, persisted or in memory, answering text."""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from taskforce.tools.planner import DESCRIPTION, PlannerTool

if TYPE_CHECKING:
    from taskforce.store import StateManager

__all__ = ["DESCRIPTION", "Outcome", "PlanSessions", "safe_session_id", "session_from"]

_UNSAFE = re.compile(r"[^A-Za-z0-9._:-]")


def safe_session_id(raw: str) -> str:
    """A valid taskforce session id for a framework's id (thread ids may hold any text)."""
    safe = _UNSAFE.sub("_", raw.strip())
    if safe and len(safe) <= 128 and safe == raw:
        return safe
    digest = hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"{safe[:100] or 'session'}-{digest}"  # distinct ids stay distinct


def session_from(value: Any) -> str | None:
    """A session id carried by a framework's context object, if any.

    Looks for a ``session_id`` (or ``thread_id``) attribute or mapping key.
    """
    for key in ("session_id", "thread_id"):
        found = value.get(key) if isinstance(value, Mapping) else getattr(value, key, None)
        if isinstance(found, str | int) and not isinstance(found, bool) and str(found).strip():
            return str(found)
    return None


@dataclass(frozen=True, slots=True)
class Outcome:
    """One planner call as a framework sees it: whether it was accepted, and the text."""

    ok: bool
    text: str
    error_type: str | None = None


class PlanSessions:
    """The planner behind an adapter: a plan per session id.

    With a `state_manager` every call loads the session's plan fresh and commits its
    change before answering (so several processes and agents can share a plan); without
    one the plans live in this object's memory.
    """

    def __init__(self, state_manager: StateManager | None) -> None:
        self._store = state_manager
        self._memory: dict[str, PlannerTool] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    async def call(self, arguments: str | Mapping[str, Any] | None, session_id: str) -> Outcome:
        """Run one planner call; the text is the checklist (or the refusal's message)."""
        params = _parse(arguments)
        if isinstance(params, str):
            return Outcome(False, params, "invalid_input")
        sid = safe_session_id(session_id)
        lock = self._locks.setdefault(sid, asyncio.Lock())
        async with lock:
            tool = self._tool(sid)
            result = await tool.execute(**params)
        if not result.get("success"):
            return Outcome(False, str(result.get("error")), result.get("error_type"))
        output, message = str(result.get("output") or ""), str(result.get("message") or "")
        quiet = params.get("action") == "read_plan" or not message
        return Outcome(True, output if quiet else f"{message}\n\n{output}")

    def _tool(self, session_id: str) -> PlannerTool:
        if self._store is not None:
            return PlannerTool(state_manager=self._store, session_id=session_id)
        return self._memory.setdefault(session_id, PlannerTool())


def _parse(arguments: str | Mapping[str, Any] | None) -> dict[str, Any] | str:
    """The call's arguments as a dict, or the message saying why they are not usable."""
    if arguments is None or arguments == "":
        return {}
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except (ValueError, RecursionError) as exc:
            return f"the arguments are not valid JSON: {str(exc)[:80]}"
    if not isinstance(arguments, Mapping):
        return 'the arguments must be a JSON object, e.g. {"action": "read_plan"}'
    return {str(k): v for k, v in arguments.items()}
