"""OpenAI's documented rules for strict function schemas, as a checker.

From the Structured Outputs guide ("Supported schemas"): the root is an object (not
`anyOf`); every object sets `additionalProperties: false` and lists all its properties in
`required`; only the supported keywords appear; at most 5,000 properties and 10 levels of
nesting (older models: 100 properties, 5 levels: we hold to the smaller numbers); at most
1,000 enum values; the names, enum values and consts together at most 15,000 characters
(the older limit; today 120,000).
"""

from __future__ import annotations

from typing import Any

SUPPORTED = {
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
TYPES = {"string", "number", "integer", "boolean", "object", "array", "null"}
MAX_PROPERTIES = 100
MAX_DEPTH = 5
MAX_ENUM_VALUES = 1000
MAX_STRING_BUDGET = 15_000


def strict_violations(spec: dict[str, Any]) -> list[str]:
    """Every rule `spec` (an OpenAI tool definition) breaks; empty when it is valid."""
    problems: list[str] = []
    function = spec.get("function", {})
    if spec.get("type") != "function" or function.get("strict") is not True:
        problems.append('the definition is not marked "strict": true')
    schema = function.get("parameters")
    if not isinstance(schema, dict):
        return [*problems, "no parameters schema"]
    if schema.get("type") != "object" or "anyOf" in schema:
        problems.append("the root must be an object, not anyOf")
    counts = {"properties": 0, "enum": 0, "chars": 0}
    _walk(schema, "$", 0, problems, counts)
    if counts["properties"] > MAX_PROPERTIES:
        problems.append(f"{counts['properties']} properties (limit {MAX_PROPERTIES})")
    if counts["enum"] > MAX_ENUM_VALUES:
        problems.append(f"{counts['enum']} enum values (limit {MAX_ENUM_VALUES})")
    if counts["chars"] > MAX_STRING_BUDGET:
        problems.append(f"{counts['chars']} characters of names/enums (limit 15000)")
    return problems


def _walk(node: Any, where: str, depth: int, problems: list[str], counts: dict[str, int]) -> None:
    if not isinstance(node, dict):
        problems.append(f"{where}: a schema must be an object")
        return
    for key in node:
        if key not in SUPPORTED:
            problems.append(f"{where}: unsupported keyword {key!r}")
    kinds = node.get("type")
    kinds = [kinds] if isinstance(kinds, str) else kinds
    if kinds is None and not {"anyOf", "$ref", "enum", "const"} & set(node):
        problems.append(f"{where}: no type")
    for kind in kinds or ():
        if kind not in TYPES:
            problems.append(f"{where}: unknown type {kind!r}")
    if "enum" in node:
        values = node["enum"]
        counts["enum"] += len(values)
        counts["chars"] += sum(len(str(v)) for v in values if v is not None)
        if kinds and "null" in kinds and None not in values:
            problems.append(f"{where}: nullable but its enum has no null")
    if "object" in (kinds or ()) or "properties" in node:
        if depth >= MAX_DEPTH:
            problems.append(f"{where}: nested deeper than {MAX_DEPTH} levels")
        properties = node.get("properties", {})
        counts["properties"] += len(properties)
        counts["chars"] += sum(len(name) for name in properties)
        if node.get("additionalProperties") is not False:
            problems.append(f"{where}: additionalProperties must be false")
        if sorted(node.get("required", [])) != sorted(properties):
            problems.append(f"{where}: every property must be required")
        for name, value in properties.items():
            _walk(value, f"{where}.{name}", depth + 1, problems, counts)
    if "items" in node:
        _walk(node["items"], f"{where}[]", depth, problems, counts)
    for i, option in enumerate(node.get("anyOf", ())):
        _walk(option, f"{where}|{i}", depth, problems, counts)
    for name, value in node.get("$defs", {}).items():
        _walk(value, f"$defs.{name}", depth, problems, counts)
