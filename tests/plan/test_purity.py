"""The plan domain is pure: it imports nothing of taskforce but errors, and no I/O library."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

PLAN = Path(__file__).resolve().parents[2] / "taskforce" / "plan"
ALLOWED_STDLIB = {
    "__future__",
    "collections",
    "dataclasses",
    "datetime",
    "enum",
    "functools",
    "html",
    "itertools",
    "json",
    "operator",
    "re",
    "types",
    "typing",
    "unicodedata",
}


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_plan_modules_import_only_the_stdlib_errors_and_each_other() -> None:
    for path in sorted(PLAN.glob("*.py")):
        for name in imported_modules(path):
            top = name.split(".")[0]
            ok = (
                name == "taskforce.errors"
                or name == "taskforce.plan"
                or name.startswith("taskforce.plan.")
                or (top != "taskforce" and top in ALLOWED_STDLIB)
            )
            assert ok, f"{path.name} imports {name}"


def test_importing_the_plan_domain_loads_no_planning_pydantic_or_io() -> None:
    code = (
        "import sys, json, taskforce.plan, taskforce.converters; "
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'taskforce', 'pydantic', 'sqlalchemy', 'litellm', 'asyncio', 'logging'})))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = json.loads(run.stdout)
    strays = [
        m
        for m in loaded
        if not m.startswith("taskforce.plan")
        and m
        not in {
            "taskforce",
            "taskforce.errors",
            "taskforce.converters",
        }
    ]
    assert strays == []
