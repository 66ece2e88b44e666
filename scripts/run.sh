#!/usr/bin/env bash
# The README's main job, from a fresh machine with only Python 3.11+ (no key, no network
# needed): set up .venv, run a mission with taskforce (the offline rule-based model unless
# TASKFORCE_MODEL or --model says otherwise), then list the sessions and show its plan.
#
#   bash scripts/run.sh                       # a demo mission
#   bash scripts/run.sh "Plan a trip to Rome: 1. book flights 2. find a hotel 3. pack"
#   bash scripts/run.sh "…" --model openai/gpt-4o-mini   # more `taskforce run` options
#
# The database is TASKFORCE_DB_URL, else an SQLite file in the user data directory.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export LITELLM_LOCAL_MODEL_COST_MAP=True

DEMO='Prepare a small team offsite:
1. List three possible dates
2. Draft the agenda, then share it with the team
3. Book a room and confirm the catering'
mission=${1:-$DEMO}
[ $# -gt 0 ] && shift

tf=.venv/bin/taskforce
show() { printf '\n$ %s\n' "$*"; }

show taskforce run "\"${mission%%$'\n'*}…\""
status=0
"$tf" run "$mission" "$@" || status=$?   # live view on a terminal, plain lines otherwise

# The newest session is the one just run (or the one it continued).
session=$("$tf" sessions --limit 1 --json | .venv/bin/python -c \
  'import json, sys; rows = json.load(sys.stdin); print(rows[0]["session_id"] if rows else "")')
if [ -z "$session" ]; then
  echo "run.sh: no session was created (taskforce run exited with $status)" >&2
  exit "$status"
fi

show taskforce sessions --limit 5
"$tf" sessions --limit 5
show taskforce plan show "$session"
"$tf" plan show "$session"
exit "$status"
