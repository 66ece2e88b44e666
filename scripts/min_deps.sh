#!/usr/bin/env bash
# The lowest `mcp` pyproject.toml admits, for real: installs taskforce with mcp pinned to
# its lower bound into .venv-min and runs the MCP tests against it. Run by
# `scripts/reliability.sh --long`; extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
bound=$("$PY" - <<'PYEOF'
import re, tomllib
deps = tomllib.load(open("pyproject.toml", "rb"))["project"]["dependencies"]
(spec,) = [d for d in deps if re.match(r"mcp\b", d)]
print(re.search(r">=\s*([\d.]+)", spec).group(1))
PYEOF
)
[ -x .venv-min/bin/python ] || "$PY" -m venv .venv-min
.venv-min/bin/python -m pip install -q --upgrade pip >/dev/null
.venv-min/bin/python -m pip install -q -e ".[test]" "mcp==$bound"
echo "min_deps: mcp $(.venv-min/bin/python -c 'import importlib.metadata as m; print(m.version("mcp"))')" >&2
LITELLM_LOCAL_MODEL_COST_MAP=True .venv-min/bin/python -m pytest tests/mcp -q -p no:cacheprovider "$@"
