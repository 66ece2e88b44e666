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

# The offline model does each step with a built-in demo tool where one fits (calculator,
# notes, files in the session's workspace folder) and skips, saying so, the one none fits.
DEMO='Prepare a team offsite for 8 people:
1. Work out the food budget: 8 * 45 + 120
2. Note the venue options: Lakeside Hall or the Old Mill
3. Write the agenda to agenda.md
4. Book the venue'
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
