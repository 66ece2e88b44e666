"""OpenAI strict function schemas: every object closed, every property required.

Strict function calling (OpenAI's ``"strict": true``, the Agents SDK's default) accepts
only a subset of JSON Schema: each object lists all its properties in ``required`` and
sets ``additionalProperties: false``; an optional property is written as nullable and
the model sends ``null`` for it. :func:`to_strict` turns an ordinary tool schema into
that form; the tool then reads ``null`` as "not given".
"""

from __future__ import annotations

import copy
from typing import Any

STRICT_KEYWORDS = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "enum",
        "const",
        "anyOf",
        "description",
        "title",
        "$ref",
        "$defs",
        "pattern",
        "format",
        "multipleOf",
        "maximum",
        "minimum",
        "exclusiveMaximum",
        "exclusiveMinimum",
        "minItems",
        "maxItems",
    }
)
"""The JSON Schema keywords OpenAI's strict mode accepts; :func:`to_strict` drops others."""

_DROPPED_TOO = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"})
# Bounds are accepted by the current API but not by every strict implementation (older
# models, gateways); the tool validates them anyway, so they are left out.


def to_strict(schema: dict[str, Any]) -> dict[str, Any]:
    """A strict copy of an object `schema`: closed objects, all required, optionals nullable.

    Keywords strict mode does not accept (``default``, ``minLength``, ...) are dropped:
    they stay enforced by the tool's own validation.

    Raises:
        ValueError: the root is not an object schema.
    """
    if schema.get("type") != "object":
        raise ValueError("a strict tool schema must be an object at the root")
    strict: dict[str, Any] = _node(copy.deepcopy(schema))
    return strict


def nullable(node: dict[str, Any]) -> dict[str, Any]:
    """`node` that also accepts ``null`` (the strict way to write "optional")."""
    if "$ref" in node or "anyOf" in node:
        options = node.pop("anyOf", None) or [{"$ref": node.pop("$ref")}]
        if {"type": "null"} not in options:
            options = [*options, {"type": "null"}]
        return {**node, "anyOf": options}
    kind = node.get("type")
    if isinstance(kind, str) and kind != "null":
        node["type"] = [kind, "null"]
    elif isinstance(kind, list) and "null" not in kind:
        node["type"] = [*kind, "null"]
    if isinstance(node.get("enum"), list) and None not in node["enum"]:
        node["enum"] = [*node["enum"], None]
    return node


def _node(node: Any) -> Any:
    if isinstance(node, list):
        return [_node(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {
        key: value
        for key, value in node.items()
        if key in STRICT_KEYWORDS and key not in _DROPPED_TOO
    }
    for key in ("items", "anyOf"):
        if key in out:
            out[key] = _node(out[key])
    if "$defs" in out:
        out["$defs"] = {name: _node(value) for name, value in out["$defs"].items()}
    is_object = out.get("type") == "object" or "properties" in out
    if is_object:
        properties: dict[str, Any] = out.get("properties") or {}
        required = set(out.get("required") or ())
        out["properties"] = {
            name: _node(value) if name in required else nullable(_node(value))
            for name, value in properties.items()
        }
        out["required"] = list(properties)
        out["additionalProperties"] = False
    return out
