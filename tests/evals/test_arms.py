"""Arms: the two bases and named variants of LeanAgent options."""

from __future__ import annotations

import pytest

from taskforce.errors import ConfigurationError
from taskforce.evals import parse_arms


def test_bases_and_variants() -> None:
    none, planner, strict, eager = parse_arms(
        "none, planner,strict=planner+require_work_before_done=true,"
        "eager=planner+plan_first=true+max_finish_reminders=0"
    )
    assert (none.name, dict(none.options), none.planning) == ("none", {"planning": False}, False)
    assert dict(planner.options) == {} and planner.planning
    assert dict(strict.options) == {"require_work_before_done": True}
    assert dict(eager.options) == {"plan_first": True, "max_finish_reminders": 0}
    assert len({a.digest for a in (none, planner, strict, eager)}) == 4


def test_arms_defined_by_the_suite() -> None:
    (arm,) = parse_arms("quiet", {"quiet": "planner+max_finish_reminders=0"})
    assert arm.name == "quiet" and dict(arm.options) == {"max_finish_reminders": 0}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "at least one arm"),
        ("none,none", "unique"),
        ("fancy", "unknown arm 'fancy'"),
        ("x=other+a=1", "must start from none or planner"),
        ("x=planner+not_an_option=1", "not option=value of a LeanAgent option"),
        ("x=planner+model=gpt", "not option=value"),
        ("bad name=planner", "letters, digits"),
    ],
)
def test_mistakes_are_named(text: str, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        parse_arms(text)


def test_a_value_nested_past_the_interpreters_limit_stays_text() -> None:
    (arm,) = parse_arms("x=planner+max_finish_reminders=" + "[" * 5_000)
    assert arm.options["max_finish_reminders"] == "[" * 5_000
