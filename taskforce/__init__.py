"""taskforce: Planning as a Tool for ReAct agents.

The public API. Light names are imported eagerly; the agent, the store and the litellm
model load on first access, so `import taskforce` stays fast and imports neither
litellm nor SQLAlchemy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from taskforce.errors import (
    ConfigurationError,
    ModelBehaviorError,
    PlanError,
    ProviderError,
    SessionNotFoundError,
    StaleStateError,
    StateCorruptError,
    StateError,
    TaskforceError,
    ToolInputError,
    UserError,
)
from taskforce.models.base import Model, ModelResponse, ToolCall, Usage
from taskforce.plan import Plan, PlanLimits, Step, StepStatus
from taskforce.tools import ApprovalRiskLevel, FunctionTool, PlannerTool, ToolProtocol

if TYPE_CHECKING:
    from taskforce.agent import AgentEvent, AgentResult, LeanAgent
    from taskforce.models.litellm_model import LiteLLMModel
    from taskforce.models.offline import OfflineModel
    from taskforce.store import SessionSummary, StateManager

__version__ = "0.1.0"

_LAZY = {
    "LeanAgent": "taskforce.agent",
    "AgentResult": "taskforce.agent",
    "AgentEvent": "taskforce.agent",
    "StateManager": "taskforce.store",
    "SessionSummary": "taskforce.store",
    "LiteLLMModel": "taskforce.models.litellm_model",
    "OfflineModel": "taskforce.models.offline",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'taskforce' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "AgentEvent",
    "AgentResult",
    "ApprovalRiskLevel",
    "ConfigurationError",
    "FunctionTool",
    "LeanAgent",
    "LiteLLMModel",
    "Model",
    "ModelBehaviorError",
    "ModelResponse",
    "OfflineModel",
    "Plan",
    "PlanError",
    "PlanLimits",
    "PlannerTool",
    "ProviderError",
    "SessionNotFoundError",
    "SessionSummary",
    "StaleStateError",
    "StateCorruptError",
    "StateError",
    "StateManager",
    "Step",
    "StepStatus",
    "TaskforceError",
    "ToolCall",
    "ToolInputError",
    "ToolProtocol",
    "Usage",
    "UserError",
    "__version__",
]
