"""The calculator demo tool: arithmetic through a whitelist of syntax, never eval."""

from __future__ import annotations

import pytest

from taskforce.errors import ToolInputError
from taskforce.tools.calculator import MAX_EXPRESSION, calculate, calculator_tool


@pytest.mark.parametrize(
    ("expression", "shown"),
    [
        ("8 * 45 + 120", "8 * 45 + 120 = 480"),
        ("0.1 + 0.2", "0.1 + 0.2 = 0.3"),
        ("10 / 4", "10 / 4 = 2.5"),
        ("7 // 2 + 7 % 2", "7 // 2 + 7 % 2 = 4"),
        ("2^10", "2**10 = 1024"),
        ("8 \u00d7 45 \u00f7 3 \u2212 1", "8 * 45 / 3 - 1 = 119"),  # x, division, minus
        ("-(3 + 4) * 2", "-(3 + 4) * 2 = -14"),
        ("sqrt(2) * 10", "sqrt(2) * 10 = 14.1421356237"),
        ("round(2.567, 2) + max(1, 2, 3) + min(4, 5) + abs(-1)", None),
        ("floor(pi) + ceil(e)", "floor(pi) + ceil(e) = 6"),
        ("  1 +\n 1 ", "1 + 1 = 2"),
    ],
)
def test_arithmetic(expression: str, shown: str | None) -> None:
    result = calculate(expression)
    if shown is None:
        assert result.endswith("= 10.57")
    else:
        assert result == shown


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("__import__('os').system('true')", "not allowed in an arithmetic expression"),
        ("open('/etc/passwd').read()", "not allowed"),
        ("(1).__class__", "not allowed"),
        ("x + 1", "not allowed in an arithmetic expression: 'x'"),
        ("'a' * 3", "not allowed"),
        ("[1] * 3", "not allowed"),
        ("lambda: 1", "not allowed"),
        ("[i for i in range(9**9)]", "not allowed"),
        ("sqrt(x=2)", "not allowed"),
        ("True + 1", "not allowed"),
        ("1 if 1 else 2", "not allowed"),
        ("1 < 2", "not allowed"),
        ("", "empty"),
        ("1 +", "not an arithmetic expression"),
        ("1; import os", "not an arithmetic expression"),
        ("1 / 0", "division by zero"),
        ("5 % 0", "division by zero"),
        ("9 ** 9 ** 9", "too large"),
        ("2 ** 5000", "too large"),
        ("10.0 ** 400", "too large"),
        ("1e308 * 10", "too large"),
        ("(2 ** 4000) * (2 ** 4000)", "too large"),
        ("sqrt(-1)", "cannot compute"),
        ("(-8) ** 0.5", "not a real number"),
        ("-" * 60 + "1", "nested deeper"),
        ("(" * 240 + "1" + ")" * 240, "not an arithmetic expression"),
        ("1 + " * 200 + "1", "longer than"),
    ],
)
def test_refusals_name_the_problem(expression: str, message: str) -> None:
    with pytest.raises(ToolInputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        calculate(expression)


def test_the_expression_length_is_bounded() -> None:
    assert len("1 + " * 200) > MAX_EXPRESSION


async def test_as_a_tool_results_and_errors_are_values() -> None:
    tool = calculator_tool()
    assert tool.name == "calculator"
    assert tool.parameters_schema["required"] == ["expression"]
    assert await tool.execute(expression="6 * 7") == {"success": True, "output": "6 * 7 = 42"}
    refused = await tool.execute(expression="__import__('os')")
    assert refused["success"] is False and "not allowed" in refused["error"]
    missing = await tool.execute()
    assert missing["success"] is False and "expression" in missing["error"]
