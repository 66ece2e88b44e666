"""Building a :class:`~taskforce.agent.LeanAgent`: its model, its tools, its known secrets."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from taskforce.agent.dispatch import PLANNER
from taskforce.errors import ConfigurationError
from taskforce.models.base import Model
from taskforce.tools.base import ToolProtocol
from taskforce.tools.function import FunctionTool
from taskforce.tools.planner import PlannerTool

TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def build_model(
    model: Model | str,
    api_base: str | None,
    api_key: str | None,
    context_window: int | None,
    options: dict[str, Any],
) -> Model:
    """The model: `model` itself, or a ``LiteLLMModel`` built from a model string."""
    if isinstance(model, str):
        from taskforce.models.litellm_model import LiteLLMModel

        return LiteLLMModel(
            model, api_base=api_base, api_key=api_key, context_window=context_window, **options
        )
    if not isinstance(model, Model):
        raise ConfigurationError(
            f"model must be a Model or a litellm model string, not {type(model).__name__}"
        )
    if api_base or api_key or options:
        raise ConfigurationError(
            "api_base, api_key and model options apply only to a model string; "
            "configure the Model object instead"
        )
    return model


def model_record(model: Model) -> dict[str, str]:
    """What a session keeps about its model: the name and the API base, never a key.

    A password inside the API base URL (``http://user:pw@host/v1``) is left out.
    """
    record = {"name": str(model.name)}
    base = getattr(model, "api_base", None)
    if isinstance(base, str) and base.strip():
        record["api_base"] = re.sub(r"^([\w+.-]+://[^:/@]*):[^@]*@", r"\1@", base.strip())
    return record


Tools = Sequence[ToolProtocol | Callable[..., Any]]
"""Tools as a user gives them: ``ToolProtocol`` objects, or plain functions to wrap."""


def check_tools(
    tools: Tools | None, planning: bool = True
) -> tuple[dict[str, ToolProtocol], PlannerTool]:
    """The tools by name (a ``PlannerTool`` added when none is named ``planner``).

    A plain function (sync or async, typed, with a docstring) is wrapped in a
    :class:`~taskforce.tools.FunctionTool`. Without `planning` no planner is offered: the
    holder returned is a ``PlannerTool`` the model never sees (its plan stays empty), and
    a tool named ``planner`` is refused.
    """
    if tools is not None and (isinstance(tools, str | bytes) or not isinstance(tools, Sequence)):
        raise ConfigurationError("tools must be a list of tools")
    by_name: dict[str, ToolProtocol] = {}
    for given in tools or []:
        tool = as_tool(given)
        if not isinstance(tool.name, str) or not TOOL_NAME.match(tool.name):
            raise ConfigurationError(f"tool name {tool.name!r} must match {TOOL_NAME.pattern}")
        if tool.name in by_name:
            raise ConfigurationError(f"two tools are named {tool.name!r}")
        by_name[tool.name] = tool
    if not planning:
        if PLANNER in by_name:
            raise ConfigurationError("planning=False: do not pass a tool named 'planner'")
        return by_name, PlannerTool()
    if PLANNER not in by_name:
        by_name = {PLANNER: PlannerTool(), **by_name}
    planner = by_name[PLANNER]
    if not isinstance(planner, PlannerTool):
        raise ConfigurationError("the tool named 'planner' must be a PlannerTool")
    return by_name, planner


def as_tool(tool: object) -> ToolProtocol:
    """`tool` itself, or a plain function wrapped in a ``FunctionTool``.

    Raises:
        ConfigurationError: neither a tool nor a function; or a function whose signature
            cannot be made a schema (e.g. a type hint that does not resolve).
    """
    if isinstance(tool, ToolProtocol):
        return tool
    if not (inspect.isfunction(tool) or inspect.ismethod(tool) or isinstance(tool, partial)):
        raise ConfigurationError(
            f"{tool!r} is not a tool: give a function or an object with the "
            "taskforce.tools.ToolProtocol attributes"
        )
    try:
        return FunctionTool(tool)
    except Exception as exc:  # a hint that does not resolve, a type pydantic cannot take
        raise ConfigurationError(
            f"function {getattr(tool, '__qualname__', tool)!r} cannot be a tool: "
            f"{type(exc).__name__}: {exc}"
        ) from None


def header_values(options: dict[str, Any]) -> list[str]:
    """Secret-looking values of auth headers in model options (for redaction)."""
    values: list[str] = []
    for key in ("extra_headers", "headers"):
        headers = options.get(key)
        if isinstance(headers, dict):
            values += [v.split()[-1] for v in headers.values() if isinstance(v, str) and v.split()]
            values += [v for v in headers.values() if isinstance(v, str)]
    return values
