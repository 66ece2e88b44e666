"""What a run of :class:`~taskforce.agent.LeanAgent` returns."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from taskforce.models.base import Usage


class AgentStatus(enum.StrEnum):
    """How a run ended (also persisted as the session's ``status``)."""

    RUNNING = "running"
    COMPLETED = "completed"
    MAX_STEPS = "max_steps"
    FAILED = "failed"
    PAUSED = "paused"


@dataclass(frozen=True, slots=True)
class AgentResult:
    """The outcome of one :meth:`LeanAgent.execute` call.

    Attributes:
        status: ``completed``, ``max_steps`` or ``failed`` (``paused`` is reserved).
        final_message: The model's last answer (or, when failed, why).
        plan_markdown: The plan as a Markdown checklist (``No active plan.`` when none).
        steps: Model calls made during this run.
        usage: Tokens used during this run, summed over all model calls.
        session_id: The session the run belongs to (pass it again to continue).
        open_steps: Plan steps still pending or in progress, as ``"s2: description"``.
        error: What went wrong when ``status`` is ``failed`` (secrets redacted).
    """

    status: AgentStatus
    final_message: str
    plan_markdown: str
    steps: int
    usage: Usage
    session_id: str
    open_steps: tuple[str, ...] = field(default_factory=tuple)
    error: str | None = None
