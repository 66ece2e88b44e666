"""The shape of the code, checked: who may know what."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "taskforce"
ACTION_NAMES = re.compile(r"\b(mark_done|create_plan|update_plan|read_plan)\b")


def test_the_agent_never_spells_a_planner_action() -> None:
    """The agent asks the planner (typed requests, gates); the action names are the tool's."""
    found = [
        f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}"
        for path in sorted((PACKAGE / "agent").glob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if ACTION_NAMES.search(line)
    ]
    assert found == []


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _runtime_imports(tree: ast.AST, typing_too: bool = False) -> list[ast.Import | ast.ImportFrom]:
    """Every import except those under ``if TYPE_CHECKING:`` (never run), unless `typing_too`."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if typing_too:
            break
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(n) for child in node.body for n in ast.walk(child))
    return [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Import | ast.ImportFrom) and id(n) not in skipped
    ]


@functools.cache
def import_graph(typing_too: bool = False) -> dict[str, set[str]]:
    """Module -> the taskforce modules it imports (``from p import m`` names module p.m).

    Imports for type checkers only are left out unless `typing_too`.
    """
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in _runtime_imports(tree, typing_too):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                base = node.module or ""
                if node.level:
                    base = ".".join(
                        package.split(".")[: len(package.split(".")) - node.level + 1]
                        + ([node.module] if node.module else [])
                    )
                targets = [
                    f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                    for a in node.names
                ]
            graph[name].update(t for t in targets if t in modules and t != name)
    return graph


def test_there_is_no_import_cycle() -> None:
    graph = import_graph()
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph[node]):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state and (cycle := visit(target)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for module in sorted(graph):
        if module not in state:
            assert (cycle := visit(module)) is None, " -> ".join(cycle)


LAYERS = (
    {"taskforce", "errors"},  # the package root loads its names lazily (importlib)
    {"plan"},
    {"planning", "converters"},
    {"store", "tools", "models"},
    {"testing"},
    {"agent", "documents", "integrations", "mcp"},
    {"evals"},
    {"cli"},
    {"__main__"},
)
"""The packages from the bottom up, as docs/architecture.md draws them."""


def test_dependencies_point_downwards() -> None:
    rank = {package: n for n, layer in enumerate(LAYERS) for package in layer}

    def package(module: str) -> str:
        return module.split(".")[1] if "." in module else module

    upward = sorted(
        f"{module} -> {target}"
        for module, targets in import_graph().items()
        for target in targets
        if package(module) != package(target) and rank[package(target)] >= rank[package(module)]
    )
    assert upward == []


def private_reach(graph: dict[str, set[str]]) -> list[str]:
    """Imports of a private module (a ``_name`` part) from outside the package holding it."""
    found = []
    for module, targets in graph.items():
        for target in targets:
            parts = target.split(".")
            private = [n for n, part in enumerate(parts) if part.startswith("_") and n]
            if not private or parts[-1] == "__main__":
                continue
            owner = ".".join(parts[: private[0]])  # the package the private module belongs to
            if module != owner and not module.startswith(owner + "."):
                found.append(f"{module} -> {target}")
    return sorted(found)


def test_no_module_imports_a_private_module_of_another_package() -> None:
    """Another package goes through the public surface (``taskforce.store``, not ``_config``)."""
    assert private_reach(import_graph(typing_too=True)) == []


def test_a_private_import_from_another_package_is_found() -> None:
    graph = {
        "taskforce.cli._views": {"taskforce.store._config", "taskforce.cli._safe"},
        "taskforce.store.manager": {"taskforce.store._urls"},
        "taskforce.store": {"taskforce.store._config"},
    }
    assert private_reach(graph) == ["taskforce.cli._views -> taskforce.store._config"]


def test_no_module_is_over_400_lines() -> None:
    long = {
        str(path.relative_to(PACKAGE)): count
        for path in PACKAGE.rglob("*.py")
        if (count := len(path.read_text(encoding="utf-8").splitlines())) > 400
    }
    assert long == {}


def test_the_plan_domain_does_not_import_planning() -> None:
    graph = import_graph()
    for module, targets in graph.items():
        if module == "taskforce.plan" or module.startswith("taskforce.plan."):
            assert not any(t.startswith("taskforce.planning") for t in targets), module


def _third_party(path: Path) -> set[str]:
    """The top-level names of the absolute imports `path` runs (lazy ones included)."""
    found: set[str] = set()
    for node in _runtime_imports(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(a.name.split(".")[0] for a in node.names)
        elif node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def importers_of(top_level: str) -> set[str]:
    """The taskforce modules (paths relative to the package) that import `top_level`."""
    return {
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if top_level in _third_party(path)
    }


def test_sqlalchemy_and_alembic_are_imported_only_by_the_store() -> None:
    for library in ("sqlalchemy", "alembic", "asyncpg", "aiosqlite"):
        outside = {m for m in importers_of(library) if not m.startswith("store/")}
        assert outside == set(), library


def test_litellm_is_imported_by_one_module() -> None:
    assert importers_of("litellm") == {"models/litellm_model.py"}


def test_the_plan_domain_is_pure() -> None:
    """plan/ imports nothing of taskforce but errors, and nothing that does I/O."""
    io = {"os", "io", "pathlib", "asyncio", "socket", "sqlite3", "subprocess", "logging", "time"}
    graph = import_graph()
    for path in sorted((PACKAGE / "plan").glob("*.py")):
        name = "taskforce.plan" + ("" if path.stem == "__init__" else f".{path.stem}")
        others = {t for t in graph[name] if not t.startswith("taskforce.plan")}
        assert others <= {"taskforce.errors"}, name
        assert _third_party(path) & io == set(), name


def test_the_planner_speaks_step_statuses() -> None:
    """The planner's wire names the statuses of StepStatus, the only status vocabulary."""
    from typing import get_args

    from taskforce.plan import StepStatus
    from taskforce.tools.planner_args import Status

    assert set(get_args(Status)) == {s.value for s in StepStatus}


def test_every_package_says_what_it_is_for() -> None:
    """A maintainer opening a package reads its job first (its __init__ docstring)."""
    silent = [
        str(path.relative_to(PACKAGE))
        for path in sorted(PACKAGE.rglob("__init__.py"))
        if "migrations" not in path.parts
        and not ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert silent == []


def test_the_planning_api_is_curated() -> None:
    import taskforce.planning

    assert len(taskforce.planning.__all__) <= 15
    for name in taskforce.planning.__all__:
        assert getattr(taskforce.planning, name).__doc__, name
