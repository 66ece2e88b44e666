"""What every tool is: the :class:`ToolProtocol`, and the OpenAI wire form of a tool."""

from __future__ import annotations

import copy
import enum
import json
from typing import Any, Protocol, runtime_checkable


class ApprovalRiskLevel(enum.StrEnum):
    """How risky a tool call is, for approval prompts."""

    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"


@runtime_checkable
class ToolProtocol(Protocol):
    """The contract every tool satisfies.

    `execute` never raises on bad input: it returns
    `{"success": False, "error": "...", "error_type": "..."}`.

    A tool may also have a ``read_only`` attribute: True when its calls change nothing
    (a lookup, a read, arithmetic). The agent then knows its calls do not make earlier
    results stale (see :func:`is_read_only`). Without it, every successful call may have
    changed the world.
    """

    @property
    def name(self) -> str:
        """The function name the model calls."""
        ...

    @property
    def description(self) -> str:
        """What the tool does, for the model."""
        ...

    @property
    def parameters_schema(self) -> dict[str, Any]:
        """A JSON Schema object for the arguments (OpenAI function-calling compatible)."""
        ...

    @property
    def requires_approval(self) -> bool:
        """Whether a human must approve each call before it runs."""
        ...

    @property
    def approval_risk_level(self) -> ApprovalRiskLevel:
        """How risky a call is."""
        ...

    @property
    def supports_parallelism(self) -> bool:
        """Whether calls may run concurrently with other tool calls."""
        ...

    async def execute(self, **params: Any) -> dict[str, Any]:
        """Run the tool. Returns `{"success": bool, ...}`; never raises on bad input."""
        ...

    def validate_params(self, **params: Any) -> tuple[bool, str | None]:
        """Check arguments without running: `(True, None)` or `(False, message)`."""
        ...

    def get_approval_preview(self, **params: Any) -> str:
        """A human-readable summary of what a call with these arguments would do."""
        ...


def tool_spec(tool: ToolProtocol, *, strict: bool = False) -> dict[str, Any]:
    """The OpenAI function-calling definition of `tool`.

    With `strict`, the OpenAI strict form (``"strict": true``): every object closed,
    every property required, optional ones nullable (see :func:`strict_parameters`).
    """
    if not strict:
        return function_spec(tool.name, tool.description, tool.parameters_schema)
    spec = function_spec(tool.name, tool.description, strict_parameters(tool))
    spec["function"]["strict"] = True
    return spec


def function_spec(name: str, description: str, parameters: dict[str, Any]) -> dict[str, Any]:
    """The OpenAI function-calling definition made of its three parts."""
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters},
    }


def strict_parameters(tool: ToolProtocol) -> dict[str, Any]:
    """The strict arguments schema of `tool`.

    Its own `strict_parameters_schema` if it has one (the planner does), else
    :func:`~taskforce.tools.strict.to_strict` of its `parameters_schema`.
    """
    own = getattr(tool, "strict_parameters_schema", None)
    if isinstance(own, dict):
        return copy.deepcopy(own)
    from taskforce.tools.strict import to_strict

    return to_strict(tool.parameters_schema)


def tool_spec_size(tool: ToolProtocol) -> int:
    """Characters of the definition the model sees: description + compact JSON schema."""
    schema = json.dumps(tool.parameters_schema, separators=(",", ":"), ensure_ascii=False)
    return len(tool.description) + len(schema)


def is_read_only(tool: object) -> bool:
    """Whether `tool` says its calls change nothing (its optional ``read_only`` is True)."""
    return getattr(tool, "read_only", False) is True


def error_result(message: str, error_type: str = "invalid_input") -> dict[str, Any]:
    """The standard failed tool result."""
    return {"success": False, "error": message, "error_type": error_type}


def compact_schema(node: Any, *, names: bool = False) -> Any:
    """Drop titles and null defaults, and collapse `anyOf: [X, null]` to X.

    Keys of a ``properties`` (or ``$defs``) mapping are names, not schema keywords: a
    parameter called ``title`` or ``default`` is kept.
    """
    if isinstance(node, list):
        return [compact_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    if names:
        return {k: compact_schema(v) for k, v in node.items()}
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title" or (key == "default" and value is None):
            continue
        out[key] = compact_schema(value, names=key in {"properties", "$defs"})
    options = out.get("anyOf")
    if isinstance(options, list):
        options = [o for o in options if o != {"type": "null"}]
        extra = {k: v for k, v in out.items() if k != "anyOf"}
        out = {**options[0], **extra} if len(options) == 1 else {**extra, "anyOf": options}
    return out
