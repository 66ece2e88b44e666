"""taskforce: Planning as a Tool for ReAct agents.

The public API. Every name loads on first access (PEP 562), so `import taskforce` and
the CLI's start-up stay fast: nothing heavy (pydantic models, litellm, SQLAlchemy) is
imported until it is used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from taskforce.agent import AgentEvent, AgentResult, LeanAgent
    from taskforce.errors import (
        ClaimError,
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
    from taskforce.models.base import Model, ModelResponse, NoCalls, ToolCall, Usage
    from taskforce.models.litellm_model import LiteLLMModel
    from taskforce.models.offline import OfflineModel
    from taskforce.plan import Plan, PlanLimits, Step, StepStatus
    from taskforce.store import SessionSummary, StateManager
    from taskforce.tools import ApprovalRiskLevel, FunctionTool, PlannerTool, ToolProtocol

__version__ = "0.1.0"

_ERRORS = [
    "ClaimError",
    "ConfigurationError",
    "ModelBehaviorError",
    "PlanError",
    "ProviderError",
    "SessionNotFoundError",
    "StaleStateError",
    "StateCorruptError",
    "StateError",
    "TaskforceError",
    "ToolInputError",
    "UserError",
]
_LAZY: dict[str, str] = {
    **dict.fromkeys(_ERRORS, "taskforce.errors"),
    **dict.fromkeys(
        ["Model", "ModelResponse", "NoCalls", "ToolCall", "Usage"], "taskforce.models.base"
    ),
    **dict.fromkeys(["Plan", "PlanLimits", "Step", "StepStatus"], "taskforce.plan"),
    **dict.fromkeys(
        ["ApprovalRiskLevel", "FunctionTool", "PlannerTool", "ToolProtocol"], "taskforce.tools"
    ),
    **dict.fromkeys(["LeanAgent", "AgentResult", "AgentEvent"], "taskforce.agent"),
    **dict.fromkeys(["StateManager", "SessionSummary"], "taskforce.store"),
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


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "AgentEvent",
    "AgentResult",
    "ApprovalRiskLevel",
    "ClaimError",
    "ConfigurationError",
    "FunctionTool",
    "LeanAgent",
    "LiteLLMModel",
    "Model",
    "ModelBehaviorError",
    "ModelResponse",
    "NoCalls",
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
