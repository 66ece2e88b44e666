"""`taskforce mcp`: the planner as an MCP server, so any MCP client can plan with it.

Built on the official ``mcp`` SDK's low-level server, so the arguments a client sends
reach :class:`~taskforce.tools.planner.PlannerTool` untouched: validation, tolerance and
error messages are the planner's own, and a refused call is a tool error (``isError``)
that leaves the stored plan exactly as it was.

* Tools ``create_plan``, ``mark_done``, ``read_plan``, ``update_plan`` (the planner's
  actions, annotated read-only / destructive / idempotent), each with an optional
  ``session_id`` that defaults to the server's session. Every successful change is
  committed to the store before the result returns, so plans survive restarts.
* Resources ``plan://{session_id}``: the plan as a Markdown checklist.

Run it with ``taskforce mcp`` or ``python -m taskforce.mcp --db URL [--session ID]``.
Importing this package imports the ``mcp`` SDK; ``import taskforce`` does not.
"""

from taskforce.mcp.server import DEFAULT_PORT, DEFAULT_SESSION, TRANSPORTS, build_server, run_server

__all__ = ["DEFAULT_PORT", "DEFAULT_SESSION", "TRANSPORTS", "build_server", "run_server"]
