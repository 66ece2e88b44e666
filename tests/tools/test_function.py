from __future__ import annotations

import asyncio
import functools

import jsonschema
import pytest

from taskforce.errors import ConfigurationError, ToolInputError
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


def book(pet_id: str, time: str = "10:00", note: str = "") -> str:
    """Book an appointment at the clinic.

    Look the pet up first.

    Args:
        pet_id: The pet's id, e.g. P-12
            (from find_pets).
        time: HH:MM, one of free_slots.
    """
    return "booked"


def book_sphinx(pet_id: str) -> str:
    """Book an appointment.

    :param pet_id: The pet's id.
    """
    return "booked"


def book_numpy(pet_id: str) -> str:
    """Book an appointment.

    Parameters
    ----------
    pet_id : str
        The pet's id.
    """
    return "booked"


def test_documented_parameters_get_their_descriptions() -> None:
    tool = FunctionTool(book)
    assert tool.description == "Book an appointment at the clinic."  # the first paragraph
    props = tool.parameters_schema["properties"]
    assert props["pet_id"] == {
        "type": "string",
        "description": "The pet's id, e.g. P-12 (from find_pets).",  # its lines joined
    }
    assert props["time"]["description"] == "HH:MM, one of free_slots."
    assert props["time"]["default"] == "10:00"
    assert "description" not in props["note"]  # not documented: no description
    for styled in (book_sphinx, book_numpy):
        assert FunctionTool(styled).parameters_schema["properties"]["pet_id"] == {
            "type": "string",
            "description": "The pet's id.",
        }


def test_undocumented_and_prose_docstrings_give_no_parameter_descriptions() -> None:
    def prose(x: int) -> int:
        """Double x: the number given (x: an integer).

        Args are checked by the schema.
        """
        return 2 * x

    assert FunctionTool(prose).parameters_schema["properties"] == {"x": {"type": "integer"}}


def test_a_partial_is_a_tool_without_the_parameters_it_fixes() -> None:
    """functools.partial: the function's name and docstring; a parameter fixed by keyword
    or by position is not offered to the model, and the call gets it."""

    def convert(amount: float, rate: float, currency: str) -> str:
        """Convert an amount at a rate.

        Args:
            amount: How much.
            rate: The rate.
            currency: The target currency.
        """
        return f"{amount * rate:.2f} {currency}"

    tool = FunctionTool(functools.partial(convert, rate=0.8))
    assert tool.name == "convert" and tool.description == "Convert an amount at a rate."
    assert set(tool.parameters_schema["properties"]) == {"amount", "currency"}
    assert asyncio.run(tool.execute(amount=10, currency="GBP")) == {
        "success": True, "output": "8.00 GBP",
    }  # fmt: skip
    bad = asyncio.run(tool.execute(amount=10, currency="GBP", rate=2))
    assert bad["success"] is False and "rate" in bad["error"]
    positional = FunctionTool(functools.partial(convert, 5))
    assert set(positional.parameters_schema["properties"]) == {"rate", "currency"}


def test_a_callable_without_a_name_needs_one() -> None:
    class Adder:
        """Add two numbers."""

        def __call__(self, a: int, b: int) -> int:
            return a + b

    with pytest.raises(ConfigurationError, match="give the tool a name="):
        FunctionTool(Adder())
    tool = FunctionTool(Adder(), name="add")
    assert set(tool.parameters_schema["properties"]) == {"a", "b"}
    assert asyncio.run(tool.execute(a=2, b=3)) == {"success": True, "output": 5}


def test_the_agent_takes_a_partial_as_a_plain_function() -> None:
    from taskforce.agent.setup import as_tool

    def greet(name: str, greeting: str) -> str:
        """Greet someone."""
        return f"{greeting}, {name}"

    tool = as_tool(functools.partial(greet, greeting="Hi"))
    assert tool.name == "greet" and set(tool.parameters_schema["properties"]) == {"name"}
