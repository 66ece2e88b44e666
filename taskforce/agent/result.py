"""What a run of :class:`~taskforce.agent.LeanAgent` returns."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from taskforce.models.base import Usage
from taskforce.plan import Plan


class AgentStatus(enum.StrEnum):
    """How a run ended (also persisted as the session's ``status``)."""

    RUNNING = "running"
    COMPLETED = "completed"
    MAX_STEPS = "max_steps"
    FAILED = "failed"
    PAUSED = "paused"
    INCOMPLETE = "incomplete"
    """The model gave its final answer with plan steps still open (listed in ``open_steps``)."""


@dataclass(frozen=True, slots=True)
class AgentResult:
    """The outcome of one :meth:`LeanAgent.execute` call.

    Attributes:
        status: ``completed`` (answered, no plan step open), ``incomplete`` (answered with
            plan steps still open: see `open_steps`), ``max_steps``, ``failed``, or ``paused``
            (a call waits for approval: see :meth:`LeanAgent.resume`).
        final_message: The model's last answer (when failed, why; when paused, what waits).
        plan_markdown: The plan as a Markdown checklist (``No active plan.`` when none).
        steps: Model calls made during this run.
        usage: Tokens used during this run, summed over all model calls.
        session_id: The session the run belongs to (pass it again to continue).
        open_steps: Plan steps still pending or in progress, as ``"s2: description"``.
        error: What went wrong when ``status`` is ``failed`` (secrets redacted).
        pending_approval: When paused, the call waiting for a human: ``tool_call_id``,
            ``name``, ``arguments``, ``preview``, ``step`` (a plan step id or None),
            ``risk`` and ``requested_at``.
        plan: The plan as the run left it (an immutable :class:`~taskforce.plan.Plan`).
    """

    status: AgentStatus
    final_message: str
    plan_markdown: str
    steps: int
    usage: Usage
    session_id: str
    open_steps: tuple[str, ...] = field(default_factory=tuple)
    error: str | None = None
    pending_approval: dict[str, Any] | None = None
    plan: Plan = field(default_factory=Plan)
