"""Loading suites: built-in names and users' Python files."""

from __future__ import annotations

from pathlib import Path

import pytest

from taskforce.errors import ConfigurationError
from taskforce.evals import Mission, Suite, Verdict, has_number, load_suite, numbers_in

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
def test_a_users_file(tmp_path: Path, export: str) -> None:
    path = tmp_path / "mine.py"
    path.write_text(USER_SUITE.format(export=export))
    suite = load_suite(str(path))
    assert suite.name == "mine" and [m.id for m in suite.missions] == ["add-5"]
    world = suite.missions[0].world()
    assert suite.missions[0].judge(world, "") == Verdict(False, "checker returned false")


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


def test_missions_are_checked() -> None:
    with pytest.raises(ConfigurationError, match="mission id"):
        Mission("has space", "x", dict, lambda w, a: True)
    with pytest.raises(ConfigurationError, match="non-empty"):
        Mission("ok", ("a", " "), dict, lambda w, a: True)
    m = Mission("ok", "x", dict, lambda w, a: 1 / 0)
    assert m.judge({}, "").reason == "checker raised ZeroDivisionError: division by zero"
    twice = Mission("a", "x", dict, lambda w, a: True)
    with pytest.raises(ConfigurationError, match="duplicate"):
        Suite("s", (twice, twice))


def test_numbers_in_answers() -> None:
    assert numbers_in("It costs 1,234.50 EUR, or -3 and 2 lemons") == [1234.5, -3.0, 2.0]
    assert has_number("Total: 69,104.", 69104) and has_number("39.20°F", 39.2)
    assert not has_number("about 39", 39.2) and not has_number("", 0)
