#!/usr/bin/env bash
# The reliability suite, one command: `bash scripts/reliability.sh [--long] [pytest args]`.
# Quick mode is what CI runs with the normal suite; --long pushes >= 100,000 generated
# tool calls, 100 SIGKILLs per database and 8 concurrent writers, and runs the MCP tests
# against the lowest mcp release pyproject.toml admits (scripts/min_deps.sh). Starts a throwaway
# PostgreSQL unless TASKFORCE_TEST_PG_URL is set (PG cases fail, not skip, without it),
# and writes docs/qa/reliability.md from the run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export LITELLM_LOCAL_MODEL_COST_MAP=True
args=()
for arg in "$@"; do
  if [ "$arg" = "--long" ]; then export TASKFORCE_RELIABILITY_LONG=1; else args+=("$arg"); fi
done
if [ -z "${TASKFORCE_TEST_PG_URL:-}" ]; then
  eval "$(bash scripts/postgres.sh)"
  trap 'bash scripts/postgres.sh stop "$TASKFORCE_TEST_PG_DIR"' EXIT
fi
export TASKFORCE_REQUIRE_PG=1
export TASKFORCE_RELIABILITY_REPORT=docs/qa/reliability.md
.venv/bin/python -m pytest tests/reliability -q ${args[@]+"${args[@]}"}
if [ -n "${TASKFORCE_RELIABILITY_LONG:-}" ]; then
  bash scripts/min_deps.sh   # the lowest mcp pyproject.toml admits runs the MCP tests
fi
