"""The planner as an OpenAI Agents SDK tool (``pip install "taskforce[openai_agents]"``).

.. code-block:: python

    from agents import Agent, Runner, SQLiteSession
    from taskforce import StateManager
    from taskforce.integrations.openai_agents import planner_tool

    async with StateManager() as store:
        session = SQLiteSession("trip-42")
        agent = Agent(name="planner", tools=[planner_tool(store, session=session)])
        await Runner.run(agent, "Plan a trip to Rome", session=session)

The definition is strict by default (the SDK's default): every parameter required,
optional ones nullable. A refused call is sent back to the model as ``Error: ...`` text,
the SDK's way for tool errors the model can fix; the run goes on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agents import FunctionTool, RunContextWrapper

from taskforce.integrations._core import DESCRIPTION, PlanSessions, session_from
from taskforce.tools.planner import PlannerTool

if TYPE_CHECKING:
    from agents.tool_context import ToolContext

    from taskforce.store import StateManager

__all__ = ["DEFAULT_SESSION", "planner_tool"]

DEFAULT_SESSION = "openai-agents"
"""The session used when neither the tool, the SDK session nor the run context names one."""


def planner_tool(
    state_manager: StateManager | None = None,
    session_id: str | None = None,
    *,
    session: Any = None,
    strict: bool = True,
    name: str = "planner",
) -> FunctionTool:
    """The ``planner`` as an Agents SDK ``FunctionTool``.

    Args:
        state_manager: persist every change to this store (else the plan lives in memory).
        session_id: the plan's session. Default: the SDK `session`'s id, else a
            ``session_id`` in the run context (``Runner.run(..., context={...})``), else
            ``"openai-agents"``.
        session: an Agents SDK session (``SQLiteSession``, ...): the plan follows its id.
        strict: send the strict definition (``strict_json_schema``).
        name: the tool's name.
    """
    plans = PlanSessions(state_manager)
    fixed = session_id or getattr(session, "session_id", None)
    tool = PlannerTool()
    schema = tool.strict_parameters_schema if strict else tool.parameters_schema

    async def invoke(ctx: ToolContext[Any], arguments: str) -> str:
        sid = fixed or _context_session(ctx) or DEFAULT_SESSION
        outcome = await plans.call(arguments, str(sid))
        return outcome.text if outcome.ok else f"Error: {outcome.text}"

    return FunctionTool(
        name=name,
        description=DESCRIPTION,
        params_json_schema=dict(schema),
        on_invoke_tool=invoke,
        strict_json_schema=strict,
    )


def _context_session(ctx: RunContextWrapper[Any]) -> str | None:
    return session_from(ctx.context) if ctx.context is not None else None
