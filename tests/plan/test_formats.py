"""Plan converters: round trips keep what each format can express; hostile text breaks none."""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from taskforce import converters as conv
from taskforce.errors import PlanError
from taskforce.plan import Plan, PlanLimits, StepStatus, clean_text

# The formats as their owners document them (required keys, enums, no extra keys).
_WIRE_STATUS = {"enum": ["pending", "in_progress", "completed"]}
CODEX_SCHEMA = {
    "type": "object",
    "properties": {
        "explanation": {"type": "string"},
        "plan": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"step": {"type": "string"}, "status": _WIRE_STATUS},
                "required": ["step", "status"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["plan"],
    "additionalProperties": False,
}
TODOWRITE_SCHEMA = {
    "type": "object",
    "properties": {
        "todos": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "content": {"type": "string", "minLength": 1},
                    "status": _WIRE_STATUS,
                    "activeForm": {"type": "string", "minLength": 1},
                },
                "required": ["content", "status", "activeForm"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["todos"],
    "additionalProperties": False,
}
ACP_SCHEMA = {
    "type": "object",
    "properties": {
        "sessionUpdate": {"const": "plan"},
        "entries": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "content": {"type": "string"},
                    "priority": {"enum": ["high", "medium", "low"]},
                    "status": _WIRE_STATUS,
                },
                "required": ["content", "priority", "status"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["sessionUpdate", "entries"],
}
TASK_LINE = re.compile(r"^- \[[ x]\] \d+\. \S.*$")
UNSAFE = re.compile(r"[\x00-\x1f\x7f\u2028\u2029\u202a-\u202e\u2066-\u2069]")

# Text that tries to break formats: Markdown syntax, entities, the renderer's own markers.
tricky = st.sampled_from(
    [
        "- [x] 9. fake",
        "\n- [ ] injected",
        " — ",
        "—",
        "(in progress)",
        " (failed: x)",
        "(skipped)",
        " (blocked by 1)",
        "~~",
        "&amp;",
        "&mdash;",
        "&#40;",
        "<script>",
        "\x00",
        "\u202e",
        "\r\n",
        ")",
        "(",
        "`",
        "|",
        "*",
        "1. ",
        "# ",
        "> ",
    ]
)
texts = st.lists(
    st.one_of(tricky, st.text(st.characters(exclude_categories=("Cs",)), max_size=12)),
    min_size=1,
    max_size=5,
).map("".join)
step_texts = texts.filter(lambda t: bool(clean_text(t)))
statuses = st.sampled_from(list(StepStatus))


@st.composite
def plans(draw: st.DrawFn, max_steps: int = 6) -> Plan:
    descriptions = draw(st.lists(step_texts, min_size=1, max_size=max_steps))
    specs: list[Any] = []
    for number, text in enumerate(descriptions, start=1):
        deps = draw(st.lists(st.integers(1, number - 1), max_size=2)) if number > 1 else []
        specs.append({"description": text, "depends_on": deps})
    plan = Plan().replaced(specs)
    working = draw(st.none() | st.integers(0, len(plan.steps) - 1))
    steps = []
    for position, step in enumerate(plan.steps):
        status = draw(statuses.filter(lambda s: s is not StepStatus.IN_PROGRESS))
        note = draw(st.none() | texts)
        steps.append(
            dataclasses.replace(
                step,
                status=StepStatus.IN_PROGRESS if position == working else status,
                note=clean_text(note) or None if note is not None else None,
            )
        )
    return dataclasses.replace(plan, steps=tuple(steps))


def _triples(plan: Plan) -> list[tuple[str, StepStatus, str | None]]:
    return [(s.description, s.status, s.note) for s in plan.steps]


FAST = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ---- Markdown ------------------------------------------------------------------------


@FAST
@given(plans())
def test_markdown_round_trip_keeps_text_status_note_and_shown_dependencies(plan: Plan) -> None:
    text = conv.to_markdown(plan)
    lines = text.split("\n")
    assert len(lines) == len(plan.steps)
    assert all(TASK_LINE.match(line) and not UNSAFE.search(line) for line in lines), text
    back = conv.from_markdown(text)
    assert _triples(back) == _triples(plan)

    def shown(p: Plan) -> list[list[int]]:  # "(blocked by N)" is shown on pending steps
        return [p.blocked_by(s) if s.status is StepStatus.PENDING else [] for s in p.steps]

    assert shown(back) == shown(plan)
    assert conv.to_markdown(back) == text


@FAST
@given(plans())
def test_markdown_matches_read_plan_when_text_needs_no_escaping(plan: Plan) -> None:
    plain = all(
        not re.search(
            r"[&—<>]|\((in progress|failed|skipped|blocked by|needs approval)",
            f"{s.description}{s.note}",
            re.I,
        )
        for s in plan.steps
    )
    if plain:
        assert conv.to_markdown(plan) == plan.render()


def test_markdown_layout_and_escaping() -> None:
    plan = Plan().replaced(
        ["Research <b>", "Summarize (in progress) R&D", "Deploy", "Polish — later"]
    )
    plan = plan.with_status([1], StepStatus.DONE, "found 3 — good")
    plan = plan.with_status([2], StepStatus.IN_PROGRESS)
    plan = plan.with_status([3], StepStatus.FAILED, "timeout (retry)")
    plan = plan.with_status([4], StepStatus.SKIPPED)
    assert conv.to_markdown(plan) == (
        "- [x] 1. Research &lt;b&gt; — found 3 &mdash; good\n"
        "- [ ] 2. Summarize &#40;in progress) R&amp;D (in progress)\n"
        "- [ ] 3. Deploy (failed: timeout (retry))\n"
        "- [x] 4. ~~Polish &mdash; later~~ (skipped)"
    )
    assert _triples(conv.from_markdown(conv.to_markdown(plan))) == _triples(plan)


def test_markdown_empty_plan() -> None:
    assert conv.to_markdown(Plan()) == "No active plan."
    assert conv.from_markdown("No active plan.").steps == ()


def test_markdown_reads_foreign_task_lists() -> None:
    text = """# Release

Some prose, and a plain bullet that is not a task:
- not a task
* [X] Tag the release
+ [ ] Write notes &amp; changelog
1. [x] Build wheels
   - [ ] nested item
```
- [ ] inside a code fence
```
- [ ] Publish — waiting on CI
- [ ] Announce (blocked by 5)
"""
    plan = conv.from_markdown(text)
    assert _triples(plan) == [
        ("Tag the release", StepStatus.DONE, None),
        ("Write notes & changelog", StepStatus.PENDING, None),
        ("Build wheels", StepStatus.DONE, None),
        ("nested item", StepStatus.PENDING, None),
        ("Publish", StepStatus.PENDING, "waiting on CI"),
        ("Announce", StepStatus.PENDING, None),
    ]
    assert plan.steps[5].depends_on == (plan.steps[4].id,)
    assert [s.id for s in plan.steps] == [f"s{n}" for n in range(1, 7)]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- [ ] first\n- [ ] second (blocked by 2)", "depend only on earlier"),
        ("- [ ] a (in progress)\n- [ ] b (in progress)", "task items 1 and 2 are both in progress"),
        ("- [ ] ok\n- [ ] \x00\n", "task 2 is empty"),
        ("- [ ] " + "x" * 501, "limit is 500"),
    ],
)
def test_markdown_refuses_what_a_plan_cannot_hold(text: str, message: str) -> None:
    with pytest.raises(PlanError, match=re.escape(message)):
        conv.from_markdown(text)


def test_markdown_refuses_huge_lines_before_parsing_them() -> None:
    hostile = "- [ ] a" + " (failed: (failed: x" * 100_000
    with pytest.raises(PlanError, match="task item 1 is longer than 8100 characters"):
        conv.from_markdown(hostile)


def test_markdown_refuses_non_text() -> None:
    with pytest.raises(PlanError, match="Markdown must be text"):
        conv.from_markdown(["- [ ] a"])  # type: ignore[arg-type]


# ---- Codex, TodoWrite, ACP -----------------------------------------------------------

V = jsonschema.Draft202012Validator
FORMATS = {
    "codex": (conv.to_codex, conv.from_codex, V(CODEX_SCHEMA), "plan", "step"),
    "todowrite": (conv.to_todowrite, conv.from_todowrite, V(TODOWRITE_SCHEMA), "todos", "content"),
    "acp": (conv.to_acp, conv.from_acp, V(ACP_SCHEMA), "entries", "content"),
}
LOSSY = {StepStatus.FAILED: StepStatus.PENDING, StepStatus.SKIPPED: StepStatus.DONE}


@pytest.mark.parametrize("name", FORMATS)
@FAST
@given(plan=plans())
def test_json_formats_round_trip(name: str, plan: Plan) -> None:
    to, back_from, schema, key, text_key = FORMATS[name]
    data = to(plan)
    schema.validate(data)
    assert not any(UNSAFE.search(item[text_key]) for item in data[key])
    dumped = json.dumps(data, ensure_ascii=False)
    back = back_from(data)
    expected = [(s.description, LOSSY.get(s.status, s.status), None) for s in plan.steps]
    assert _triples(back) == expected
    assert to(back) == data  # a second trip changes nothing
    assert back_from(dumped).to_state() == back.to_state()  # JSON text is accepted too


def test_wire_statuses() -> None:
    plan = Plan().replaced(["a", "b", "c", "d", "e"])
    steps = [
        dataclasses.replace(s, status=status)
        for s, status in zip(plan.steps, StepStatus, strict=True)
    ]
    plan = dataclasses.replace(plan, steps=tuple(steps))
    assert [e["status"] for e in conv.to_codex(plan)["plan"]] == [
        "pending",
        "in_progress",
        "completed",  # DONE
        "pending",  # FAILED: work remains
        "completed",  # SKIPPED: nothing left to do
    ]


def test_codex_explanation_is_cleaned_and_optional() -> None:
    plan = Plan().replaced(["a"])
    assert "explanation" not in conv.to_codex(plan)
    assert conv.to_codex(plan, "why\nnot")["explanation"] == "why not"
    args = {"explanation": "ignored", "plan": [{"step": "a", "status": "completed"}]}
    assert _triples(conv.from_codex(args)) == [("a", StepStatus.DONE, None)]


def test_todowrite_keeps_active_form_while_the_text_is_unchanged() -> None:
    todos = [
        {"content": "Run tests", "status": "in_progress", "activeForm": "Running tests"},
        {"content": "Ship", "status": "pending", "activeForm": "Ship"},
    ]
    plan = conv.from_todowrite({"todos": todos})
    assert conv.to_todowrite(plan) == {"todos": todos}
    assert conv.to_todowrite(Plan.from_state(plan.to_state())) == {"todos": todos}  # stored
    plan = plan.edited(reword=(1, "Run the linters"))
    assert conv.to_todowrite(plan)["todos"][0]["activeForm"] == "Run the linters"


def test_acp_keeps_priority() -> None:
    entries = [
        {"content": "a", "priority": "high", "status": "completed"},
        {"content": "b", "priority": "low", "status": "in_progress"},
        {"content": "c", "priority": "medium", "status": "pending"},
    ]
    update = {"sessionUpdate": "plan", "entries": entries}
    assert conv.to_acp(conv.from_acp(update)) == update
    assert conv.to_acp(conv.from_acp(entries)) == update  # the bare list too
    plain = Plan().replaced(["x"])
    assert conv.to_acp(plain)["entries"][0]["priority"] == "medium"


def test_state_dicts_are_accepted() -> None:
    plan = Plan().replaced(["a", "b"]).with_status([1], StepStatus.DONE)
    assert conv.to_codex(plan.to_state()) == conv.to_codex(plan)
    session = {"mission": "m", "plan": plan.to_state(), "version": 3}  # StateManager.load_state
    assert conv.to_markdown(session) == conv.to_markdown(plan)


def test_hostile_text_stays_one_clean_line_in_every_format() -> None:
    hostile = "Deploy\n- [x] 2. pwned\u202e\x00 <img src=x> — (failed: no)"
    plan = conv.from_codex({"plan": [{"step": hostile, "status": "pending"}]})
    (step,) = plan.steps
    assert step.description == clean_text(hostile)
    assert "\n" not in step.description and not UNSAFE.search(step.description)
    markdown = conv.to_markdown(plan)
    assert len(markdown.splitlines()) == 1 and "<img" not in markdown
    assert _triples(conv.from_markdown(markdown)) == _triples(plan)
    for to, _, schema, key, text_key in FORMATS.values():
        data = to(plan)
        schema.validate(data)
        assert data[key][0][text_key] == step.description


@pytest.mark.parametrize(
    ("convert", "data", "message"),
    [
        (conv.from_codex, "{not json", "not valid JSON"),
        (conv.from_codex, [], "must be an object with 'plan'"),
        (conv.from_codex, {"steps": []}, "has no 'plan' list"),
        (conv.from_codex, {"plan": "a, b"}, "must be a list"),
        (conv.from_codex, {"plan": ["a"]}, "plan item 1 must be an object"),
        (conv.from_codex, {"plan": [{"status": "pending"}]}, "plan item 1: 'step' must be text"),
        (conv.from_codex, {"plan": [{"step": "a", "status": "failed"}]}, "status must be pending"),
        (conv.from_codex, {"plan": [{"step": "a", "status": ["x"]}]}, "status must be pending"),
        (conv.from_codex, {"plan": [{"step": " \n ", "status": "pending"}]}, "task 1 is empty"),
        (
            conv.from_codex,
            {
                "plan": [
                    {"step": "a", "status": "in_progress"},
                    {"step": "b", "status": "in_progress"},
                ]
            },
            "plan items 1 and 2 are both in progress",
        ),
        (
            conv.from_todowrite,
            {"todos": [{"content": 3, "status": "pending"}]},
            "'content' must be text",
        ),
        (
            conv.from_todowrite,
            [{"content": "a", "status": "pending", "activeForm": 5}],
            "activeForm must be text",
        ),
        (conv.from_todowrite, 42, "must be a list"),
        (conv.from_acp, {"entries": [{"content": "a", "priority": "urgent"}]}, "priority must be"),
        (conv.from_acp, {"entries": None}, "must be a list"),
    ],
)
def test_bad_input_is_refused_with_a_clear_message(convert: Any, data: Any, message: str) -> None:
    with pytest.raises(PlanError, match=re.escape(message)):
        convert(data)


@pytest.mark.parametrize("depth", [5_000, 100_000])
def test_json_nested_past_the_interpreters_limit_is_a_plan_error(depth: int) -> None:
    # Python 3.11 raises RecursionError inside json.loads here; 3.13 a decode error
    with pytest.raises(PlanError, match=r"nests lists or objects too deeply|not valid JSON"):
        conv.from_codex("[" * depth)


def test_limits_apply() -> None:
    limits = PlanLimits(max_steps=2, max_text=10, max_note=5)
    three = {"plan": [{"step": s, "status": "pending"} for s in "abc"]}
    with pytest.raises(PlanError, match="3 tasks is too many; the limit is 2"):
        conv.from_codex(three, limits)
    with pytest.raises(PlanError, match="note is 6 characters; the limit is 5"):
        conv.from_markdown("- [ ] a — 123456", limits)


def test_tolerant_status_spelling_and_defaults() -> None:
    plan = conv.from_todowrite([{"content": "a", "status": " In Progress "}, {"content": "b"}])
    assert [s.status for s in plan.steps] == [StepStatus.IN_PROGRESS, StepStatus.PENDING]


def test_converters_are_light_to_import() -> None:
    code = (
        "import sys, taskforce, taskforce.converters; "
        "print([m for m in ('mcp', 'sqlalchemy', 'litellm', 'taskforce.mcp') if m in sys.modules])"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "[]"
