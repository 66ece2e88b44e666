#!/usr/bin/env bash
# The benchmarks, one command: `bash scripts/bench.sh [--quick]`.
# Builds .venv-bench (separate from .venv: the peers pin their own openai/langchain
# versions), installs taskforce with the peers (openai-agents' SQLAlchemy session,
# LangGraph's SQLite checkpointer), starts a throwaway PostgreSQL unless
# TASKFORCE_TEST_PG_URL is set, runs bench/run_all.py and writes docs/qa/benchmarks.md
# and bench/results.json. Extra arguments go to bench/run_all.py.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
VENV=.venv-bench
# Versions the figures were taken with; pinned so a rerun measures the same peers.
PEERS=("openai-agents[sqlalchemy]==0.20.0" "langgraph==1.2.22" "langgraph-checkpoint-sqlite==3.1.2")
if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
fi
stamp=$VENV/.taskforce-bench-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ] || [ "$0" -nt "$stamp" ]; then
  "$VENV/bin/python" -m pip install -q --upgrade pip >/dev/null
  if grep -q '^bench = ' pyproject.toml; then
    "$VENV/bin/python" -m pip install -q -e ".[bench]"
  else
    if ! "$VENV/bin/python" -m pip install -q -e . "${PEERS[@]}"; then
      echo "bench: the peers did not install; they will be reported as not measured" >&2
      "$VENV/bin/python" -m pip install -q -e .
    fi
  fi
  touch "$stamp"
fi
export LITELLM_LOCAL_MODEL_COST_MAP=True
if [ -z "${TASKFORCE_TEST_PG_URL:-}" ]; then
  if pg_env=$(bash scripts/postgres.sh); then
    eval "$pg_env"
    trap 'bash scripts/postgres.sh stop "$TASKFORCE_TEST_PG_DIR"' EXIT
  else
    echo "bench: PostgreSQL could not be started; its rows will say so" >&2
  fi
fi
"$VENV/bin/python" bench/run_all.py "$@"
