from __future__ import annotations

import jsonschema

from taskforce.errors import ToolInputError
from taskforce.tools import FunctionTool, ToolProtocol


def add(a: float, b: float = 0.0) -> float:
    """Add two numbers.

    More text that is not part of the description.
    """
    return a + b


async def shout(text: str) -> str:
    """Upper-case a text."""
    if not text:
        raise ToolInputError("text must not be empty")
    return text.upper()


def broken() -> None:
    """Always fails."""
    raise RuntimeError("disk on fire")


def test_schema_and_metadata_from_signature() -> None:
    tool = FunctionTool(add)
    assert isinstance(tool, ToolProtocol)
    assert tool.name == "add" and tool.description == "Add two numbers."
    schema = tool.parameters_schema
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["required"] == ["a"]
    assert schema["properties"]["a"] == {"type": "number"}
    assert tool.supports_parallelism is True and tool.requires_approval is False


def event(title: str, default: str, date: str | None = None) -> str:
    """Parameters whose names are JSON Schema keywords."""
    return f"{title} {default} {date}"


def test_parameters_named_like_schema_keywords_are_kept() -> None:
    # compact_schema drops the `title` keyword, never a parameter called `title`
    schema = FunctionTool(event).parameters_schema
    assert set(schema["properties"]) == {"title", "default", "date"}
    assert schema["properties"]["title"] == {"type": "string"}
    assert schema["required"] == ["title", "default"]
    assert "title" not in schema and "title" not in schema["properties"]["date"]
    jsonschema.Draft202012Validator.check_schema(schema)


async def test_execute_validates_and_coerces() -> None:
    tool = FunctionTool(add)
    assert await tool.execute(a="2", b=3) == {"success": True, "output": 5.0}
    missing = await tool.execute(b=1)
    assert missing["success"] is False and "'a'" in missing["error"]
    extra = await tool.execute(a=1, c=2)
    assert extra["success"] is False and "unexpected parameter 'c'" in extra["error"]
    assert tool.validate_params(a="x")[0] is False
    assert tool.validate_params(a=1) == (True, None)


async def test_async_functions_and_errors_become_results() -> None:
    assert await FunctionTool(shout).execute(text="hi") == {"success": True, "output": "HI"}
    refused = await FunctionTool(shout).execute(text="")
    assert refused == {
        "success": False,
        "error": "text must not be empty",
        "error_type": "invalid_input",
    }
    failed = await FunctionTool(broken, name="oops").execute()
    assert failed["success"] is False and "RuntimeError: disk on fire" in failed["error"]
    assert failed["error_type"] == "tool_error"


def test_approval_preview_names_the_call() -> None:
    tool = FunctionTool(add, requires_approval=True)
    assert tool.get_approval_preview(a=1, b=2) == "add(a=1, b=2)"
