"""`taskforce eval --rejudge`: stored runs judged again after a checker was fixed."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import Invoke

SUITE = """
from taskforce.evals import Mission, Suite, Verdict
from taskforce.testing import call, reply


class Bistro:
    def __init__(self):
        self.bookings = {}

    def book(self, name: str) -> str:
        \"\"\"Book a table.\"\"\"
        key = f"T-{len(self.bookings) + 1}"
        self.bookings[key] = "booked"
        return key

    def cancel(self, table: str) -> str:
        \"\"\"Cancel a booking.\"\"\"
        self.bookings[table] = "cancelled"
        return table + " cancelled"

    def tools(self):
        return [self.book, self.cancel]


def check(w, answer):
    return Verdict(CONDITION, f"bookings {w.bookings}")


REF = (call("book", name="Ana"), call("cancel", table="T-1"), reply("Ana has T-1."))
TEXT = "Book a table for Ana (cancel any booked by mistake)."
SUITE = Suite("bistro", (Mission("ana", TEXT, Bistro, check, reference=REF),))
"""


def test_a_fixed_checker_judges_the_stored_runs_again(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "path", [*sys.path])  # the suites' folder goes on it
    flawed, fixed = tmp_path / "flawed.py", tmp_path / "fixed.py"
    flawed.write_text(SUITE.replace("CONDITION", "len(w.bookings) == 1"))
    fixed.write_text(SUITE.replace("CONDITION", "list(w.bookings.values()) == ['booked']"))
    results, report = tmp_path / "r.jsonl", tmp_path / "eval.md"
    common = ["--arms", "none", "--results", str(results), "--plain"]
    made = cli("eval", "--suite", str(flawed), "--model", "reference", *common)
    assert made.exit_code == 0, made.output
    assert [json.loads(line)["solved"] for line in results.read_text().splitlines()] == [True]
    again = cli("eval", "--suite", str(fixed), "--rejudge", *common, "--report", str(report))
    assert again.exit_code == 0, again.output
    said = "1 run of bistro judged again: 1 verdict changed (ana/none#0), 0 reasons reworded;"
    assert said in again.output and "Traceback" not in again.output
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    assert [r["solved"] for r in lines] == [True, False]  # the new verdict appended
    assert lines[1]["reason"] == "bookings {'T-1': 'cancelled'}" and lines[1]["false_completion"]
    assert "| none | 0/1" in report.read_text()
    same = cli("eval", "--suite", str(fixed), "--rejudge", *common)
    assert "1 run of bistro judged again: 0 verdicts changed, 0 reasons reworded\n" in same.output
    assert len(results.read_text().splitlines()) == 2


def test_rejudging_without_stored_runs_is_one_clear_line(cli: Invoke, tmp_path: Path) -> None:
    missing = cli("eval", "--rejudge", "--results", str(tmp_path / "none.jsonl"))
    assert missing.exit_code != 0 and "no such file to rejudge" in missing.output
    assert "Traceback" not in missing.output
