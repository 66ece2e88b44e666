"""The agent loop: :class:`LeanAgent`, its result and its events.

Importing this package is light: no litellm, no SQLAlchemy (a model string is turned into
a ``LiteLLMModel`` only when an agent is built with one).
"""

from taskforce.agent.events import AgentEvent, EventCallback, EventKind, Redactor
from taskforce.agent.loop import LeanAgent
from taskforce.agent.result import AgentResult, AgentStatus
from taskforce.store import MemoryStore, SessionStore

__all__ = [
    "AgentEvent",
    "AgentResult",
    "AgentStatus",
    "EventCallback",
    "EventKind",
    "LeanAgent",
    "MemoryStore",
    "Redactor",
    "SessionStore",
]
