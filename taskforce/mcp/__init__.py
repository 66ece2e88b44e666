"""`taskforce mcp`: the planner as an MCP server, so any MCP client can plan with it.

Built on the official ``mcp`` SDK's low-level server, so the arguments a client sends
reach :class:`~taskforce.tools.planner.PlannerTool` untouched: validation, tolerance and
error messages are the planner's own, and a refused call is a tool error (``isError``)
that leaves the stored plan exactly as it was.

* Tools ``create_plan``, ``mark_done``, ``read_plan``, ``update_plan`` (the planner's
  actions, annotated read-only / destructive / idempotent), each with an optional
  ``session_id`` that defaults to the server's session. Every successful change is
  committed to the store before the result returns, so plans survive restarts.
* Resources ``plan://{session_id}``: the plan as a Markdown checklist, listed by page,
  newest first. Clients are told when a plan changes, whoever changed it
  (``subscriptions/listen``, or ``resources/subscribe`` for older clients).
* Prompts ``plan_task`` and ``continue_plan``.

Run it with ``taskforce mcp`` or ``python -m taskforce.mcp --db URL [--session ID]``.
Importing this package imports the ``mcp`` SDK; ``import taskforce`` does not.
"""

from taskforce.mcp.serve import DEFAULT_PORT, TRANSPORTS, PortInUseError, run_server
from taskforce.mcp.server import DEFAULT_SESSION, build_server

__all__ = [
    "DEFAULT_PORT",
    "DEFAULT_SESSION",
    "TRANSPORTS",
    "PortInUseError",
    "build_server",
    "run_server",
]
