"""The planner as a pydantic-ai tool (``pip install "taskforce[pydantic_ai]"``).

.. code-block:: python

    from pydantic_ai import Agent
    from taskforce import StateManager
    from taskforce.integrations.pydantic_ai import planner_tool

    async with StateManager() as store:
        agent = Agent("openai:gpt-4o-mini", tools=[planner_tool(store)])
        await agent.run("Plan a trip to Rome", deps={"session_id": "trip-42"})

The plan follows the run's ``deps`` (a ``session_id`` attribute or key) unless
`session_id` is given. A refused call raises ``ModelRetry``: the model is told what was
wrong and calls again (up to `max_retries` times). The model gets the checklist as text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic_ai import ModelRetry, RunContext, Tool

from taskforce.integrations._core import DESCRIPTION, PlanSessions, session_from
from taskforce.tools.planner import PlannerTool

if TYPE_CHECKING:
    from taskforce.store import StateManager

__all__ = ["DEFAULT_SESSION", "EXAMPLE_CALL", "planner_tool"]

DEFAULT_SESSION = "pydantic-ai"
"""The session used when neither the tool nor the run's deps name one."""

EXAMPLE_CALL = {"action": "create_plan", "tasks": ["Research", "Draft", "Review"]}
"""Shown in the schema's ``examples`` (and what pydantic-ai's ``TestModel`` sends)."""


def planner_tool(
    state_manager: StateManager | None = None,
    session_id: str | None = None,
    *,
    max_retries: int = 3,
    strict: bool | None = None,
    name: str = "planner",
) -> Tool[Any]:
    """The ``planner`` as a pydantic-ai ``Tool`` (works with any deps type).

    Args:
        state_manager: persist every change to this store (else the plan lives in memory).
        session_id: the plan's session. Default: ``deps.session_id`` (or
            ``deps["session_id"]``), else ``"pydantic-ai"``.
        max_retries: how many refused calls in a row the model may fix (``ModelRetry``).
        strict: pydantic-ai's ``strict`` flag (OpenAI strict function calling).
        name: the tool's name.
    """
    plans = PlanSessions(state_manager)
    schema = {**PlannerTool().parameters_schema, "examples": [EXAMPLE_CALL]}

    async def planner(ctx: RunContext[Any], **arguments: Any) -> str:
        sid = session_id or session_from(ctx.deps) or DEFAULT_SESSION
        outcome = await plans.call(arguments, sid)
        if not outcome.ok:
            raise ModelRetry(outcome.text)
        return outcome.text

    tool: Tool[Any] = Tool.from_schema(
        planner, name=name, description=DESCRIPTION, json_schema=schema, takes_ctx=True
    )
    tool.max_retries, tool.strict = max_retries, strict  # not arguments of from_schema
    return tool
