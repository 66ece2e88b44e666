"""A failed call that passed a name where an id was wanted is told the id (``agent.aliases``)."""

from __future__ import annotations

from typing import Any

import pytest

from taskforce.agent import LeanAgent
from taskforce.agent.aliases import Aliases, known_ids
from taskforce.errors import ToolInputError
from taskforce.testing import ScriptedModel, call, reply
from taskforce.tools.function import FunctionTool
from tests.agent.helpers import tool_results

STUDENTS = {
    "success": True,
    "output": [
        {"student_id": "S-701", "name": "Ana Petrov"},
        {"student_id": "S-703", "name": "Chloe Brandt"},
        {"student_id": "S-711", "name": "Ana Silva"},
    ],
}


def aliases(*results: Any) -> Aliases:
    found = Aliases()
    for result in results:
        found.add("list_students", result)
    return found


@pytest.mark.parametrize(
    ("arguments", "match"),
    [
        ({"student_id": "Chloe Brandt"}, ("student_id", "Chloe Brandt", ["S-703"])),
        ({"student_id": "  chloe   BRANDT "}, ("student_id", "  chloe   BRANDT ", ["S-703"])),
        ({"student_id": "Brandt"}, ("student_id", "Brandt", ["S-703"])),  # a last name
        ({"student_id": "Ana"}, ("student_id", "Ana", ["S-701", "S-711"])),  # two: both named
        ({"mark": 91, "student_id": "Chloe"}, ("student_id", "Chloe", ["S-703"])),
    ],
)
def test_a_name_passed_as_an_id_is_matched_to_the_ids_beside_it(
    arguments: dict[str, Any], match: tuple[str, str, list[str]]
) -> None:
    key, text, ids = match
    assert aliases(STUDENTS).match(arguments) == (key, text, "list_students", ids)


@pytest.mark.parametrize(
    "arguments",
    [
        {"student_id": "S-703"},  # the id itself
        {"pupil": "Chloe Brandt"},  # no object has this key
        {"student_id": "Dmitri"},  # no object has this text
        {"student_id": "Petrov Ana"},  # not the whole text, nor its first or last word
        {"student_id": 703},  # not a text
        {"student_id": ""},
    ],
)
def test_no_match_without_a_name_beside_an_id_of_that_key(arguments: dict[str, Any]) -> None:
    assert aliases(STUDENTS).match(arguments) is None


def test_more_than_two_objects_with_the_name_are_too_ambiguous_to_name() -> None:
    three = [{"id": f"B-{i}", "title": "Salt"} for i in range(3)]
    assert aliases({"output": three}).match({"id": "Salt"}) is None
    assert aliases({"output": three[:2]}).match({"id": "Salt"}) == (
        "id",
        "Salt",
        "list_students",
        ["B-0", "B-1"],
    )


def test_a_long_text_is_matched_whole_only_and_nested_objects_are_read() -> None:
    nested = {"output": {"page": {"items": [{"code": 7, "label": "the big blue salt road"}]}}}
    found = aliases(nested, {"output": [{"flag": True, "name": "Bo"}]})
    assert found.match({"code": "The big blue salt road"}) == (
        "code",
        "The big blue salt road",
        "list_students",
        ["7"],
    )
    assert found.match({"code": "the"}) is None  # no first word of a sentence
    assert found.match({"flag": "Bo"}) is None  # a bool is no id


PATIENT = {
    "success": True,
    "output": {
        "patient_id": "PT-203",
        "name": "Lena Wolf",
        "prescriptions": [
            {"rx_id": "RX-504", "drug": "lisinopril 10 mg", "quantity": 30},
            {"rx_id": "RX-505", "drug": "metformin 500 mg", "quantity": 60},
        ],
    },
}


def test_an_id_no_result_gave_is_told_the_ones_they_did_with_their_words() -> None:
    found = aliases(PATIENT)
    known = found.known({"quantity": 30, "rx_id": "LenaWolfLisinopril"})
    assert known == (
        "rx_id",
        "LenaWolfLisinopril",
        [("RX-504", "Lena Wolf: lisinopril 10 mg"), ("RX-505", "Lena Wolf: metformin 500 mg")],
    )
    assert known_ids(*known) == (
        'No result so far has rx_id "LenaWolfLisinopril"; the results gave rx_id "RX-504" '
        '(Lena Wolf: lisinopril 10 mg), "RX-505" (Lena Wolf: metformin 500 mg).'
    )


@pytest.mark.parametrize(
    "arguments",
    [
        {"rx_id": "RX-505"},  # a value a result gave
        {"order_id": "O-1"},  # a key no result had
        {"drug": "aspirin"},  # not an id
        {"rx_id": ""},
        {"rx_id": 504},  # not a text
    ],
)
def test_no_known_ids_for_a_value_given_a_key_never_seen_or_no_id(
    arguments: dict[str, Any],
) -> None:
    assert aliases(PATIENT).known(arguments) is None


def test_the_latest_values_of_a_key_are_the_ones_named() -> None:
    many = {"output": [{"id": f"B-{i}", "title": f"Book {i}"} for i in range(10)]}
    found = aliases(many, {"output": {"id": "B-2", "title": "Book 2"}})  # seen again: latest
    known = found.known({"id": "B-99"})
    assert known is not None
    assert [v for v, _ in known[2]] == ["B-5", "B-6", "B-7", "B-8", "B-9", "B-2"]


# ---- in the loop ----------------------------------------------------------------------


async def test_the_failed_call_and_its_repeat_name_the_id_the_lookup_gave() -> None:
    marks: list[str] = []

    def list_students(class_name: str) -> list[dict[str, str]]:
        """The students of a class with their student_id and name."""
        return [{"student_id": "S-703", "name": "Chloe Brandt"}]

    def get_marks(student_id: str) -> list[int]:
        """A student's marks."""
        if student_id != "S-703":
            raise ToolInputError(f"no student {student_id!r}; use list_students for the ids")
        marks.append(student_id)
        return [58, 64]

    wrong = call("get_marks", student_id="Chloe Brandt")
    model = ScriptedModel([
        call("list_students", class_name="7B"), wrong, wrong,
        call("get_marks", student_id="S-703"), reply("61"),
    ])  # fmt: skip
    tools = [FunctionTool(list_students, read_only=True), FunctionTool(get_marks, read_only=True)]
    await LeanAgent(model, tools, planning=False).execute("Chloe Brandt's average mark?")
    named = 'In the result of list_students, "Chloe Brandt" has student_id "S-703": use '
    failed = tool_results(model.requests[2].messages)["call_2"]
    assert failed["success"] is False and failed["hint"].startswith(named)
    repeated = tool_results(model.requests[3].messages)["call_3"]
    assert repeated["error_type"] == "repeated_call" and named in repeated["error"]
    assert marks == ["S-703"]


async def test_a_made_up_id_after_the_lookup_is_told_the_ids_the_lookup_gave() -> None:
    filled: list[str] = []

    def find_patient(name: str) -> dict[str, Any]:
        """A patient with the rx_id of each prescription."""
        return PATIENT["output"]  # type: ignore[return-value]

    def fill_prescription(rx_id: str) -> str:
        """Fill a prescription by its rx_id."""
        if rx_id not in ("RX-504", "RX-505"):
            raise ToolInputError(f"no prescription {rx_id!r}; use find_patient to see a patient's")
        filled.append(rx_id)
        return "filled"

    model = ScriptedModel([
        call("find_patient", name="Lena Wolf"),
        call("fill_prescription", rx_id="LenaWolfLisinopril"),
        call("fill_prescription", rx_id="RX-504"), reply("Filled."),
    ])  # fmt: skip
    tools = [FunctionTool(find_patient, read_only=True), FunctionTool(fill_prescription)]
    await LeanAgent(model, tools, planning=False).execute("Fill Lena Wolf's lisinopril.")
    failed = tool_results(model.requests[2].messages)["call_2"]
    assert failed["hint"].startswith(
        'No result so far has rx_id "LenaWolfLisinopril"; the results gave rx_id "RX-504" '
        "(Lena Wolf: lisinopril 10 mg)"
    )
    assert filled == ["RX-504"]
