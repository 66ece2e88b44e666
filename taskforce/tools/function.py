"""A plain Python function as a tool: its signature becomes the schema the model sees."""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable
from typing import Any, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from taskforce.errors import ConfigurationError, ToolInputError
from taskforce.tools.base import ApprovalRiskLevel, compact_schema, error_result

logger = logging.getLogger(__name__)


class FunctionTool:
    """Wrap `fn` (sync or async) so it satisfies :class:`~taskforce.tools.base.ToolProtocol`.

    The parameters are validated with pydantic from the type hints; the first paragraph
    of the docstring is the description unless one is given, and a parameter documented
    in it (an ``Args:`` section, NumPy ``Parameters``, or Sphinx ``:param x:``) gets that
    text as its description in the schema. `read_only`: calls change
    nothing (a lookup, a read), so they do not make earlier results stale. The result is
    `{"success": True, "output": <return value>}`; an exception raised by `fn` becomes
    `{"success": False, ...}` (raise :class:`ToolInputError` for a fix-it message).
    """

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        requires_approval: bool = False,
        approval_risk_level: ApprovalRiskLevel = ApprovalRiskLevel.LOW,
        supports_parallelism: bool = True,
        read_only: bool = False,
    ) -> None:
        self._fn = fn
        base, bound = _unwrapped(fn)
        fn_name = getattr(base, "__name__", None)
        if not (name or isinstance(fn_name, str)):
            raise ConfigurationError(f"{fn!r} has no __name__: give the tool a name=")
        self.name = name or str(fn_name)
        doc = inspect.getdoc(base) or ""
        self.description = description or doc.split("\n\n")[0].strip() or self.name
        self.requires_approval = requires_approval
        self.approval_risk_level = approval_risk_level
        self.supports_parallelism = supports_parallelism
        self.read_only = read_only
        self._args_model = _args_model(fn, base, bound, self.name, _param_docs(doc))
        schema: dict[str, Any] = compact_schema(self._args_model.model_json_schema())
        schema.pop("description", None)
        self._schema = schema

    @property
    def parameters_schema(self) -> dict[str, Any]:
        """JSON Schema generated from the function's signature."""
        return self._schema

    def validate_params(self, **params: Any) -> tuple[bool, str | None]:
        """Validate arguments against the signature."""
        try:
            self._args_model.model_validate(params)
        except ValidationError as exc:
            return False, _describe(exc)
        return True, None

    def get_approval_preview(self, **params: Any) -> str:
        """`name(arg=value, ...)`."""
        return f"{self.name}(" + ", ".join(f"{k}={v!r}" for k, v in params.items()) + ")"

    async def execute(self, **params: Any) -> dict[str, Any]:
        """Validate, call the function, and wrap its result; never raises for bad input."""
        try:
            args = self._args_model.model_validate(params)
        except ValidationError as exc:
            return error_result(_describe(exc))
        try:
            result = self._fn(**{k: getattr(args, k) for k in type(args).model_fields})
            if inspect.isawaitable(result):
                result = await result
        except ToolInputError as exc:
            return error_result(str(exc), exc.error_type)
        except Exception as exc:
            logger.info("tool %s raised %s", self.name, type(exc).__name__)
            return error_result(f"{self.name} failed: {type(exc).__name__}: {exc}", "tool_error")
        return {"success": True, "output": result}


def _param_docs(doc: str) -> dict[str, str]:
    """Parameter name -> its description in the docstring (Google, NumPy, Sphinx styles)."""
    if not doc:
        return {}
    import docstring_parser  # only for a tool made from a documented function

    try:
        parsed = docstring_parser.parse(doc)
    except docstring_parser.ParseError:  # a docstring is prose first: no sections, no docs
        return {}
    return {
        p.arg_name: " ".join(p.description.split())
        for p in parsed.params
        if p.description and p.description.strip()
    }


def _unwrapped(fn: Callable[..., Any]) -> tuple[Callable[..., Any], frozenset[str]]:
    """The function behind `fn`, through ``functools.partial``; and what it fixes by keyword.

    A parameter a partial fixes by keyword is not offered to the model.
    """
    bound: set[str] = set()
    while isinstance(fn, functools.partial):
        bound |= set(fn.keywords)
        fn = fn.func
    return fn, frozenset(bound)


def _args_model(
    fn: Callable[..., Any],
    base: Callable[..., Any],
    bound: frozenset[str],
    name: str,
    docs: dict[str, str],
) -> type[BaseModel]:
    hints = get_type_hints(base if inspect.isroutine(base) else type(base).__call__)
    fields: dict[str, Any] = {}
    for param in inspect.signature(fn).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD) or param.name in bound:
            continue
        annotation = hints.get(param.name, Any)
        default = ... if param.default is param.empty else param.default
        fields[param.name] = (annotation, Field(default, description=docs.get(param.name)))
    model: type[BaseModel] = create_model(
        f"{name}_args", __config__=ConfigDict(extra="forbid"), **fields
    )
    return model


def _describe(exc: ValidationError) -> str:
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"]) or "arguments"
    if first["type"] == "extra_forbidden":
        return f"unexpected parameter {where!r}"
    if first["type"] == "missing":
        return f"missing required parameter {where!r}"
    return f"{where}: {first['msg']}"
