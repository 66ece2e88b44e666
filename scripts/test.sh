#!/usr/bin/env bash
# The whole test suite, from a fresh machine with only Python: creates .venv, installs
# taskforce with its test extras, starts a throwaway PostgreSQL on 127.0.0.1 (installing
# Debian's postgresql if needed) and runs pytest. Extra arguments go to pytest.
# PYTHON / TASKFORCE_VENV choose another interpreter and venv (see scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${TASKFORCE_VENV:-.venv}
bash scripts/setup.sh
export LITELLM_LOCAL_MODEL_COST_MAP=True
if [ -z "${TASKFORCE_TEST_PG_URL:-}" ]; then
  eval "$(bash scripts/postgres.sh)"
  trap 'bash scripts/postgres.sh stop "$TASKFORCE_TEST_PG_DIR"' EXIT
fi
export TASKFORCE_REQUIRE_PG=1
"$VENV/bin/python" -m pytest "$@"
