"""``python -m taskforce.mcp``: the planner MCP server, with the options of ``taskforce mcp``."""

from __future__ import annotations

import argparse
import logging

from taskforce.errors import StateError, TaskforceError, UserError
from taskforce.mcp.serve import DEFAULT_PORT, TRANSPORTS, run_server
from taskforce.mcp.server import DEFAULT_SESSION


def main(argv: list[str] | None = None) -> None:
    """Parse the options and serve until the client disconnects."""
    parser = argparse.ArgumentParser(
        prog="python -m taskforce.mcp", description="Serve taskforce's planner over MCP."
    )
    parser.add_argument(
        "--db",
        help="database URL (default: $TASKFORCE_DB_URL or the user data dir); MCP clients "
        "do not pass your environment, so name the database here in their config",
    )
    parser.add_argument("--session", help=f"default session id (default: {DEFAULT_SESSION})")
    parser.add_argument("--transport", choices=TRANSPORTS, default="stdio")
    parser.add_argument("--host", default="127.0.0.1", help="HTTP host (default: 127.0.0.1)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, help="HTTP port")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    try:
        run_server(args.db, args.session, args.transport, args.host, args.port)
    except TaskforceError as exc:  # the CLI's exit codes: 2 usage, 4 database
        code = 4 if isinstance(exc, StateError) else 2 if isinstance(exc, UserError) else 1
        parser.exit(code, f"taskforce mcp: error: {exc}\n")
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
