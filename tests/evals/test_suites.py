"""Loading suites: built-in names and users' Python files."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

from taskforce.errors import ConfigurationError
from taskforce.evals import Mission, Suite, Verdict, has_number, load_suite, numbers_in


@pytest.fixture(autouse=True)
def _own_sys_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """load_suite puts a suite's folder on sys.path: each test gets the path back."""
    monkeypatch.setattr(sys, "path", [*sys.path])


USER_SUITE = '''
from taskforce.evals import Mission, Suite
from taskforce.tools import FunctionTool

class Counter:
    def __init__(self):
        self.value = 0
    def tools(self):
        def add(n: int) -> int:
            """Add n to the counter."""
            self.value += n
            return self.value
        return [FunctionTool(add)]

{export}
'''


@pytest.mark.parametrize(
    "export",
    [
        'SUITE = Suite("mine", (Mission("add-5", "Add 5", Counter, lambda w, a: w.value == 5),))',
        'def suite():\n    return Suite("mine", (Mission("add-5", "Add 5", Counter, '
        "lambda w, a: w.value == 5),))",
        'MISSIONS = [Mission("add-5", "Add 5", Counter, lambda w, a: w.value == 5)]',
    ],
)
async def test_a_users_file(tmp_path: Path, export: str) -> None:
    path = tmp_path / "mine.py"
    path.write_text(USER_SUITE.format(export=export))
    suite = load_suite(str(path))
    assert suite.name == "mine" and [m.id for m in suite.missions] == ["add-5"]
    world = suite.missions[0].world()
    assert await suite.missions[0].judge(world, "") == Verdict(False, "checker returned false")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("X = 1", "defines no suite"),
        ("raise RuntimeError('boom')", "failed to load: RuntimeError: boom"),
        ("from taskforce.evals import Suite\nSUITE = Suite('x', ())", "has no missions"),
    ],
)
def test_bad_files_are_named(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.py"
    path.write_text(content)
    with pytest.raises(ConfigurationError, match=message):
        load_suite(str(path))


def test_unknown_names() -> None:
    with pytest.raises(ConfigurationError, match=r"a suite is a name or a \.py path, not int"):
        load_suite(3)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="unknown suite 'nope'"):
        load_suite("nope")
    with pytest.raises(ConfigurationError, match="no suite file"):
        load_suite("missing.py")


async def test_missions_are_checked() -> None:
    with pytest.raises(ConfigurationError, match="mission id"):
        Mission("has space", "x", dict, lambda w, a: True)
    with pytest.raises(ConfigurationError, match="non-empty"):
        Mission("ok", ("a", " "), dict, lambda w, a: True)
    m = Mission("ok", "x", dict, lambda w, a: 1 / 0)
    assert (await m.judge({}, "")).reason == "checker raised ZeroDivisionError: division by zero"
    twice = Mission("a", "x", dict, lambda w, a: True)
    with pytest.raises(ConfigurationError, match="duplicate"):
        Suite("s", (twice, twice))


def test_numbers_in_answers() -> None:
    assert numbers_in("It costs 1,234.50 EUR, or -3 and 2 lemons") == [1234.5, -3.0, 2.0]
    assert has_number("Total: 69,104.", 69104) and has_number("39.20°F", 39.2)
    assert not has_number("about 39", 39.2) and not has_number("", 0)


def test_a_suite_imports_its_own_modules(tmp_path: Path) -> None:
    (tmp_path / "shop_tools.py").write_text(
        "def stock(item: str) -> int:\n    '''Units in stock.'''\n    return 3\n"
    )
    (tmp_path / "shop.py").write_text(
        "from shop_tools import stock\n"
        "from taskforce.evals import Mission\n"
        "class World:\n"
        "    def tools(self):\n"
        "        return [stock]\n"
        "MISSIONS = [Mission('stock', 'How many pens?', World, lambda w, a: '3' in a)]\n"
    )
    suite = load_suite(tmp_path / "shop.py")
    assert [m.id for m in suite.missions] == ["stock"]
    assert suite.missions[0].world().tools()[0]("pen") == 3


@pytest.mark.parametrize(
    ("world", "check", "message"),
    [
        (dict, lambda w: True, r"check is called as check\(world, final_answer\), .* \(w\)"),
        (lambda size: {}, lambda w, a: True, r"world is called as world\(\) .* \(size\)"),
    ],
)
def test_callables_that_cannot_be_called_so_are_refused(
    world: Any, check: Any, message: str, tmp_path: Path
) -> None:
    with pytest.raises(ConfigurationError, match=message):
        Mission("m", "x", world, check)
    path = tmp_path / "bad.py"  # from a file: the file and the mission are named, once
    path.write_text(
        "from taskforce.evals import Mission\n"
        "MISSIONS = [Mission('m', 'x', dict, lambda w: True)]\n"
    )
    with pytest.raises(ConfigurationError, match=r"^\S*bad.py: mission 'm': check is called"):
        load_suite(path)


@pytest.mark.parametrize(
    ("outcome", "verdict"),
    [
        (True, Verdict(True, "checker returned true")),
        (0, Verdict(False, "checker returned false")),
        ((False, "no note saved"), Verdict(False, "no note saved")),
        (Verdict(True, "ok"), Verdict(True, "ok")),
    ],
)
async def test_what_a_checker_may_return(outcome: Any, verdict: Verdict) -> None:
    assert await Mission("m", "x", dict, lambda w, a: outcome).judge({}, "") == verdict

    async def later(world: Any, answer: str) -> Any:
        await asyncio.sleep(0)
        return outcome

    assert await Mission("m", "x", dict, later).judge({}, "") == verdict


@pytest.mark.parametrize(
    ("outcome", "message"),
    [
        (None, r"returned None: return a Verdict.*\(a missing return\?\)"),
        ("solved", "returned 'solved': return a Verdict"),
        (2, "returned 2: return a Verdict"),
        ((True,), r"returned \(True,\): return"),
        ("x" * 200, r"returned 'x{79}\.\.\.: return"),
    ],
)
async def test_a_checker_returning_something_else_stops_the_evaluation(
    outcome: Any, message: str
) -> None:
    with pytest.raises(ConfigurationError, match=r"^mission 'm': its checker " + message):
        await Mission("m", "x", dict, lambda w, a: outcome).judge({}, "")
