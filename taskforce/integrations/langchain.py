"""The planner as a LangChain tool for LangGraph and LangChain agents.

Install with ``pip install "taskforce[langchain]"``.

.. code-block:: python

    from langchain.agents import create_agent
    from taskforce import StateManager
    from taskforce.integrations.langchain import planner_tool

    async with StateManager() as store:
        agent = create_agent("openai:gpt-4o-mini", tools=[planner_tool(store)])
        config = {"configurable": {"thread_id": "trip-42"}}
        await agent.ainvoke({"messages": [("user", "Plan a trip to Rome")]}, config)

The plan follows the run's ``thread_id`` (LangGraph's conversation id) unless
`session_id` is given. A refused call raises ``ToolException``: the agent gets a
``ToolMessage`` with ``status="error"`` and the planner's message, not a success.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import StructuredTool, ToolException

from taskforce.integrations._core import DESCRIPTION, PlanSessions, session_from
from taskforce.tools.planner import PlannerTool

if TYPE_CHECKING:
    from taskforce.store import StateManager

__all__ = ["DEFAULT_SESSION", "planner_tool"]

DEFAULT_SESSION = "langchain"
"""The session used when neither the tool nor the run's config names one."""


def planner_tool(
    state_manager: StateManager | None = None,
    session_id: str | None = None,
    *,
    strict: bool = False,
    name: str = "planner",
) -> StructuredTool:
    """The ``planner`` as a LangChain ``StructuredTool`` (async; use ``ainvoke``).

    Args:
        state_manager: persist every change to this store (else the plan lives in memory).
        session_id: the plan's session. Default: the run's
            ``config["configurable"]["thread_id"]`` (or ``session_id``), else
            ``"langchain"``.
        strict: show the OpenAI strict definition (for ``bind_tools(..., strict=True)``).
        name: the tool's name.
    """
    plans = PlanSessions(state_manager)
    tool = PlannerTool()
    schema = tool.strict_parameters_schema if strict else tool.parameters_schema

    async def planner(config: RunnableConfig, **arguments: Any) -> str:
        configurable = config.get("configurable") or {}
        sid = session_id or session_from(configurable) or DEFAULT_SESSION
        outcome = await plans.call(arguments, sid)
        if not outcome.ok:
            raise ToolException(outcome.text)
        return outcome.text

    return StructuredTool.from_function(
        coroutine=planner,
        name=name,
        description=DESCRIPTION,
        args_schema={"title": name, **schema},
        handle_tool_error=True,
    )
