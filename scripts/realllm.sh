#!/usr/bin/env bash
# Opt-in: a real small model for developing the agent, never used by the test suite.
# Qwen2.5-Coder-1.5B (llama.cpp's llama-server) on 127.0.0.1:8014, built by
# shared/realllm/setup.sh (about 8 min the first time; everything under /tmp/realllm), found
# beside the checkout or any folder above it (a worktree, a CI clone), or at $REALLLM_DIR.
#
#   scripts/realllm.sh start    build if needed, start the server (no-op if it is up), print env
#   scripts/realllm.sh smoke    start if needed, then one LiteLLMModel tool call against it
#   scripts/realllm.sh env      print the exports that point taskforce at the server
#   scripts/realllm.sh status   is it up?
#   scripts/realllm.sh stop     stop the server this script started (by its PID file)
set -euo pipefail
cd "$(dirname "$0")/.."
find_realllm() {  # the nearest shared/realllm beside this checkout or above it
  local dir
  dir=$(pwd)
  while [ "$dir" != / ]; do
    dir=$(dirname "$dir")
    if [ -f "$dir/shared/realllm/setup.sh" ]; then echo "$dir/shared/realllm"; return; fi
  done
  echo "$(cd .. && pwd)/shared/realllm"   # named in the error message when missing
}
REALLLM_DIR=${REALLLM_DIR:-$(find_realllm)}
R=/tmp/realllm
PORT=8014
BASE="http://127.0.0.1:$PORT/v1"
MODEL="openai/qwen2.5-coder-1.5b"
PIDFILE=/tmp/realllm-server.pid
PY=${PYTHON:-.venv/bin/python}

up() { curl -sf "http://127.0.0.1:$PORT/health" >/dev/null 2>&1; }

print_env() {
  cat <<EOF
export TASKFORCE_MODEL=$MODEL
export OPENAI_API_BASE=$BASE
export OPENAI_API_KEY=local-no-key-needed
# or in Python: LiteLLMModel("$MODEL", api_base="$BASE", api_key="x")
EOF
}

start() {
  if up; then echo "realllm: already serving on $BASE" >&2; return 0; fi
  if [ ! -x "$R/build/bin/llama-server" ] || [ ! -f "$R/model/qwen.gguf" ]; then
    [ -f "$REALLLM_DIR/setup.sh" ] || { echo "realllm: no $REALLLM_DIR/setup.sh (set REALLLM_DIR)" >&2; exit 1; }
    echo "realllm: building llama-server and the model (~8 min, log: /tmp/realllm-setup.log)" >&2
    bash "$REALLLM_DIR/setup.sh" >/tmp/realllm-setup.log 2>&1 \
      || { tail -20 /tmp/realllm-setup.log >&2; exit 1; }
  fi
  bash "$REALLLM_DIR/serve.sh" >&2 || { tail -20 /tmp/realllm-server.log >&2; exit 1; }
  echo "realllm: serving on $BASE (log /tmp/realllm-server.log; stop: $0 stop)" >&2
}

smoke() {
  start
  REALLLM_BASE=$BASE REALLLM_MODEL=$MODEL "$PY" - <<'PYEOF'
import asyncio, json, os, time
from taskforce.models.litellm_model import LiteLLMModel

PLANNER = {"type": "function", "function": {
    "name": "planner",
    "description": "Manage the task plan. action=create_plan needs `tasks` (list of step texts).",
    "parameters": {"type": "object", "properties": {
        "action": {"type": "string", "enum": ["create_plan", "mark_done", "read_plan"]},
        "tasks": {"type": "array", "items": {"type": "string"}}},
        "required": ["action"]}}}

async def main() -> None:
    model = LiteLLMModel(os.environ["REALLLM_MODEL"], api_base=os.environ["REALLLM_BASE"],
                         api_key="x", temperature=0, max_retries=1, timeout=120,
                         context_window=8192)  # litellm does not know this local model
    messages = [
        {"role": "system", "content": "You are a planning agent. Before answering, "
                                      "call the planner tool with action=create_plan."},
        {"role": "user", "content": "Mission: write a haiku about databases. Plan it first: 2 steps."},
    ]
    print("context_window:", model.context_window, "| prompt tokens (estimate):",
          model.count_tokens(messages, [PLANNER]))
    t = time.monotonic()
    first = await model.complete(messages, [PLANNER])
    print(f"turn 1 ({time.monotonic() - t:.1f}s):", first)
    if not first.tool_calls:
        raise SystemExit("SMOKE FAILED: no tool call")
    call = first.tool_calls[0]
    args = json.loads(call.arguments)  # raises if the model sent invalid JSON
    print("tool call:", call.name, args)
    messages.append(first.to_message())
    for c in first.tool_calls:
        messages.append({"role": "tool", "tool_call_id": c.id,
                         "content": "Plan created:\n- [ ] s1 Draft\n- [ ] s2 Polish"})
    t = time.monotonic()
    second = await model.complete(messages, [PLANNER])
    print(f"turn 2 ({time.monotonic() - t:.1f}s):", second)
    print("SMOKE OK" if call.name == "planner" else "SMOKE: unexpected tool " + call.name)

asyncio.run(main())
PYEOF
}

case "${1:-start}" in
  start) start; print_env ;;
  smoke) smoke ;;
  env) print_env ;;
  status) if up; then echo "up: $BASE"; else echo "down"; exit 1; fi ;;
  stop)
    if [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
      kill "$(cat "$PIDFILE")" && rm -f "$PIDFILE" && echo "stopped"
    else echo "not running (no live PID in $PIDFILE)"; fi ;;
  *) sed -n '2,11p' "$0"; exit 2 ;;
esac
