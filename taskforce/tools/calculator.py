"""The `calculator` demo tool: arithmetic read with :mod:`ast`, never ``eval``.

Only numbers, ``+ - * / // % **``, parentheses, a few functions (``sqrt``, ``abs``,
``round``, ``min``, ``max``, ``floor``, ``ceil``) and the constants ``pi`` and ``e`` are
accepted; anything else (names, attributes, calls of other functions, strings, lambdas,
comprehensions) is refused with a message naming it. Sizes are bounded: the expression's
length, its nesting, exponents and the magnitude of every intermediate result.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable
from typing import Any

from taskforce.errors import ToolInputError
from taskforce.tools.function import FunctionTool

MAX_EXPRESSION = 500
"""Longest expression accepted, in characters."""

_MAX_BITS = 4096  # an integer result bigger than 2**4096 is refused
_MAX_DEPTH = 50
_SPELLED = str.maketrans(
    {"\u00d7": "*", "\u00b7": "*", "\u00f7": "/", "\u2212": "-", "\u2013": "-", "^": "**"}
)

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.UAdd: operator.pos,
    ast.USub: operator.neg,
}
_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "sqrt": math.sqrt,
    "abs": abs,
    "round": round,
    "min": min,
    "max": max,
    "floor": math.floor,
    "ceil": math.ceil,
}
_CONSTANTS = {"pi": math.pi, "e": math.e}


def calculate(expression: str) -> str:
    """Evaluate an arithmetic expression, e.g. `8 * 45 + 120` or `sqrt(2) * 10`.

    Numbers, + - * / // % ** (or ^), parentheses, sqrt, abs, round, min, max, floor,
    ceil, pi and e. Returns `expression = result`.
    """
    text = " ".join(str(expression).translate(_SPELLED).split())
    if not text:
        raise ToolInputError("the expression is empty")
    if len(text) > MAX_EXPRESSION:
        raise ToolInputError(f"the expression is longer than {MAX_EXPRESSION} characters")
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError):
        raise ToolInputError(f"not an arithmetic expression: {text!r}") from None
    try:
        value = _eval(tree.body, 0)
    except ZeroDivisionError:
        raise ToolInputError("division by zero") from None
    except (OverflowError, MemoryError):
        raise ToolInputError("the result is too large") from None
    except (ValueError, TypeError) as exc:  # e.g. sqrt(-1), round(1, 2, 3), (-8) ** 0.5
        raise ToolInputError(f"cannot compute {text!r}: {exc}") from None
    return f"{text} = {format_number(value)}"


def format_number(value: int | float) -> str:
    """`660`, `2.5`, `0.3` (0.1 + 0.2), `1.41421356237`: at most 12 significant digits."""
    if isinstance(value, int):
        return str(value)
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return format(value, ".12g")


def _eval(node: ast.AST, depth: int) -> int | float:
    if depth > _MAX_DEPTH:
        raise ToolInputError(f"the expression is nested deeper than {_MAX_DEPTH} levels")
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return _checked(node.value)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _eval(node.left, depth + 1), _eval(node.right, depth + 1)
        if isinstance(node.op, ast.Pow):
            _check_power(left, right)
        return _checked(_BINARY[type(node.op)](left, right))
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _checked(_UNARY[type(node.op)](_eval(node.operand, depth + 1)))
    if isinstance(node, ast.Name) and node.id in _CONSTANTS:
        return _CONSTANTS[node.id]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        function = _FUNCTIONS.get(node.func.id)
        if function is not None and node.args:
            args = [_eval(arg, depth + 1) for arg in node.args]
            return _checked(function(*args))
    raise ToolInputError(f"not allowed in an arithmetic expression: {_shown(node)}")


def _check_power(base: int | float, exponent: int | float) -> None:
    whole = isinstance(base, int) and isinstance(exponent, int)
    if whole and exponent > 0 and abs(base) > 1 and exponent * math.log2(abs(base)) > _MAX_BITS:
        raise OverflowError
    if abs(exponent) > 10_000:
        raise OverflowError


def _checked(value: Any) -> int | float:
    if isinstance(value, complex):
        raise ValueError("the result is not a real number")
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"unexpected result {type(value).__name__}")
    if isinstance(value, int) and value.bit_length() > _MAX_BITS:
        raise OverflowError
    if isinstance(value, float) and not math.isfinite(value):
        raise OverflowError
    return value


def _shown(node: ast.AST) -> str:
    try:
        text = ast.unparse(node)
    except Exception:  # pragma: no cover - unparse handles every parsed node
        text = type(node).__name__
    return repr(text if len(text) <= 60 else text[:59] + "…")


def calculator_tool() -> FunctionTool:
    """The `calculator` tool (a :class:`FunctionTool` over :func:`calculate`)."""
    return FunctionTool(calculate, name="calculator", read_only=True)
