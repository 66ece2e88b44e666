"""The `mcp` lower bound in pyproject.toml admits only SDKs that have what the server imports.

`mcp>=1.0` let pip pick mcp 1.30 next to `langchain-mcp-adapters` (which pins `mcp<2`),
and `taskforce mcp` died with `No module named 'mcp_types'`. FIRST_RELEASE records, from
the published wheels, the first mcp release that ships each module the server imports;
scripts/min_deps.sh installs the bound itself and runs tests/mcp against it (reliability
--long mode).
"""

from __future__ import annotations

import ast
import importlib
import re
import tomllib
from importlib.metadata import version
from pathlib import Path

from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]

FIRST_RELEASE = {
    "mcp_types": "2.0.0",  # the mcp-types distribution starts at 2.0.0
    "mcp.server.context": "2.0.0",
    "mcp.server.subscriptions": "2.0.0",  # subscriptions/listen (2026-07-28)
    "mcp.shared.subscriptions": "2.0.0",
    "mcp.server.lowlevel": "1.0.0",
    "mcp.server.stdio": "1.0.0",
    "mcp.shared.exceptions": "1.0.0",
    "mcp.shared.message": "1.4.0",
    "mcp.server.session": "1.0.0",
}


def lower_bound() -> Version:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (spec,) = [d for d in meta["project"]["dependencies"] if re.match(r"mcp\b", d)]
    match = re.search(r">=\s*([\d.]+)", spec)
    assert match, f"no lower bound in {spec!r}"
    return Version(match.group(1))


def imported_sdk_modules() -> set[str]:
    found: set[str] = set()
    for path in (ROOT / "taskforce" / "mcp").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else []
            )
            found |= {n for n in names if n.split(".")[0] in ("mcp", "mcp_types") and n != "mcp"}
    return found


def test_the_lower_bound_has_every_module_the_server_imports() -> None:
    bound = lower_bound()
    modules = imported_sdk_modules()
    assert modules, "the server imports the SDK"
    unknown = modules - set(FIRST_RELEASE)
    assert not unknown, f"add the first mcp release of {unknown} to FIRST_RELEASE"
    for module in modules:
        assert bound >= Version(FIRST_RELEASE[module]), (
            f"mcp>={bound} admits releases without {module} (first in {FIRST_RELEASE[module]})"
        )
        importlib.import_module(module)


def test_the_installed_sdk_satisfies_the_bound() -> None:
    assert Version(version("mcp")) >= lower_bound()
    assert Version(version("mcp-types")) >= lower_bound()
