#!/usr/bin/env bash
# Create .venv (if missing) and install taskforce with its test extras into it, and the
# frameworks its adapters are tested with (the openai_agents, pydantic_ai, langchain extras).
# Needs only python3 >= 3.11 on PATH; re-running is cheap (pip skips what is installed).
# PYTHON picks the interpreter, TASKFORCE_VENV the folder (default .venv): .ci/run uses
# them for a second venv on Python 3.13.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
VENV=${TASKFORCE_VENV:-.venv}
if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
fi
stamp=$VENV/.taskforce-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  "$VENV/bin/python" -m pip install -q --upgrade pip >/dev/null
  "$VENV/bin/python" -m pip install -q -e ".[test,openai_agents,pydantic_ai,langchain]"
  # BFCL's multi-turn classes and checker for `taskforce eval --suite bfcl-multi-turn` and its
  # tests: without its dependencies (numpy, faiss, ...), which those parts never import.
  "$VENV/bin/python" -m pip install -q --no-deps "bfcl-eval==2026.3.23" "mpmath>=1.3,<2"
  touch "$stamp"
fi
