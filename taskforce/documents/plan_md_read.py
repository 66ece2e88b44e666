"""Reading a Plan.md back into a :class:`~taskforce.documents.plan_md.PlanDocument`.

Strict where it matters (the frontmatter, step fields, the log table) and tolerant of
what people add by hand: prose under a step, extra frontmatter keys (Obsidian tags),
missing optional bullets, ids left out (``s<N>`` is used), "completed" for "done".
Every error is a :class:`~taskforce.errors.UserError` naming the line or the step. A
file is not trusted: its plan is admitted by the planner's own rules
(:func:`taskforce.plan.admit.admit`: limits, text cleaned to one safe line, one step in
progress, printable ids), and a status is a known label or status name, nothing more.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any

from taskforce.documents._text import (
    Scalar,
    decode_line,
    parse_time,
    read_frontmatter,
    split_row,
)
from taskforce.documents.plan_md import Criterion, LogRow, PlanDocument
from taskforce.errors import PlanError, UserError
from taskforce.plan import StepStatus
from taskforce.plan.admit import admit

MAX_DOCUMENT_CHARS = 5_000_000
_STEP_HEADING = re.compile(r"^###\s+Step\s+(\d{1,6})\s*:\s?(.*)$")
_FIELD = re.compile(r"^[-*]\s+\*\*([A-Za-z ]+)\*\*\s*:\s?(.*)$")
_CRITERION = re.compile(r"^[-*]\s+\[([ xX])\]\s+(.*)$")
_KNOWN_FIELDS = frozenset(
    {
        "id",
        "status",
        "requires approval",
        "dependencies",
        "parent",
        "owner",
        "lease until",
        "started",
        "completed",
        "retries",
        "note",
        "text",
        "extra",
    }
)
_STEP_REF = re.compile(r"^Step\s+(\d{1,6})$", re.IGNORECASE)


def parse_plan_md(text: str) -> PlanDocument:
    """Read Plan.md text (as written by :func:`render_plan_md`, or edited by hand).

    Raises:
        UserError: malformed document, naming the line; or a plan that breaks the
            contract (bad dependencies, duplicate ids), naming the step.
    """
    if not isinstance(text, str):
        raise UserError("a Plan.md must be text")
    if len(text) > MAX_DOCUMENT_CHARS:
        raise UserError(f"the Plan.md is larger than {MAX_DOCUMENT_CHARS} characters")
    lines = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    front, start = read_frontmatter(lines)
    sections = _sections(lines, start)
    doc_id = _required_str(front, "id")
    status = _required_str(front, "status").strip().lower()
    if not re.fullmatch(r"[a-z][a-z0-9_-]{0,31}", status):
        raise UserError(f"frontmatter: status {status[:40]!r} is not a status name")
    objective = front.get("objective")
    if not isinstance(objective, str):
        raise UserError("frontmatter: 'objective' must be a string")
    title = front.get("title")
    state: dict[str, Any] = {
        "tasks": _steps(lines, sections.get("steps")),
        "version": _int(front, "plan_version", 0),
        "revision": _int(front, "plan_revision", 0),
        "next_id": _int(front, "next_id", 1),
    }
    try:
        plan = admit(state)  # the planner's own rules: limits, text hygiene, one in progress
    except PlanError as exc:
        raise UserError(f"Plan.md steps: {exc}") from exc
    return PlanDocument(
        id=doc_id,
        objective=objective,
        status=status,
        plan=plan,
        created_at=_time(front, "created_at"),
        completed_at=_time(front, "completed_at"),
        title=title if isinstance(title, str) else None,
        success_criteria=_criteria(lines, sections.get("success criteria")),
        log=_log(lines, sections.get("execution log")),
    )


def _required_str(front: dict[str, Scalar], key: str) -> str:
    value = front.get(key)
    if not isinstance(value, str) or not value:
        raise UserError(f"frontmatter: '{key}' must be a non-empty string")
    return value


def _int(front: dict[str, Scalar], key: str, default: int) -> int:
    value = front.get(key, default)
    if value is None:
        return default
    if not isinstance(value, int) or value < 0:
        raise UserError(f"frontmatter: '{key}' must be an integer >= 0")
    return value


def _time(front: dict[str, Scalar], key: str) -> datetime | None:
    value = front.get(key)
    if value is None:
        return None
    return parse_time(str(value), f"frontmatter: '{key}'")


def _sections(lines: list[str], start: int) -> dict[str, tuple[int, int]]:
    """``{"steps": (first line, end line)}`` for each ``## Heading`` after `start`."""
    heads = [
        (i, line[3:].strip().lower())
        for i, line in enumerate(lines)
        if i >= start and line.startswith("## ")
    ]
    found: dict[str, tuple[int, int]] = {}
    for n, (index, name) in enumerate(heads):
        end = heads[n + 1][0] if n + 1 < len(heads) else len(lines)
        if name in found:
            raise UserError(f"line {index + 1}: section '## {name}' appears twice")
        found[name] = (index + 1, end)
    if "steps" not in found:
        raise UserError("the Plan.md has no '## Steps' section")
    return found


def _criteria(lines: list[str], span: tuple[int, int] | None) -> tuple[Criterion, ...]:
    if span is None:
        return ()
    items = []
    for index in range(*span):
        match = _CRITERION.match(lines[index].strip())
        if match:
            text = decode_line(match.group(2), f"line {index + 1}")
            items.append(Criterion(text, match.group(1) != " "))
    return tuple(items)


def _steps(lines: list[str], span: tuple[int, int] | None) -> list[dict[str, Any]]:
    assert span is not None
    blocks: list[tuple[int, int, str, dict[str, tuple[int, str]]]] = []
    for index in range(*span):
        line = lines[index]
        heading = _STEP_HEADING.match(line)
        if heading:
            if int(heading.group(1)) != len(blocks) + 1:
                raise UserError(f"line {index + 1}: expected Step {len(blocks) + 1}")
            blocks.append((index, int(heading.group(1)), heading.group(2), {}))
            continue
        field = _FIELD.match(line.strip())
        if field and blocks:
            name = field.group(1).strip().lower()
            if name not in _KNOWN_FIELDS:
                continue
            if name in blocks[-1][3]:
                raise UserError(f"line {index + 1}: '{field.group(1)}' given twice for this step")
            blocks[-1][3][name] = (index + 1, field.group(2))
    ids = [_step_id(b) for b in blocks]
    tasks: list[dict[str, Any]] = []
    for (index, number, title, fields), step_id in zip(blocks, ids, strict=True):
        where = f"line {index + 1} (Step {number})"
        task: dict[str, Any] = {}
        if "extra" in fields:
            task.update(_extra(*fields["extra"]))
        text_line, text = fields.get("text", (index + 1, title))
        task.update(
            id=step_id,
            description=decode_line(text, f"line {text_line}"),
            status=_status(fields.get("status"), where),
            note=decode_line(*_rev(fields["note"])) if "note" in fields else None,
        )
        deps = _dependencies(fields.get("dependencies"), ids, where)
        if deps:
            task["depends_on"] = deps
        parent = _dependencies(fields.get("parent"), ids, where)
        if len(parent) > 1:
            raise UserError(f"{where}: Parent names one step")
        if parent:
            task["parent"] = parent[0]
        if "owner" in fields:
            task["owner"] = decode_line(*_rev(fields["owner"])) or None
        if "lease until" in fields:
            line_no, value = fields["lease until"]
            task["lease_until"] = parse_time(value, f"line {line_no}")
        approval = fields.get("requires approval", (0, "No"))[1].strip().lower()
        if approval not in ("yes", "no", "true", "false"):
            raise UserError(f"{where}: Requires Approval must be Yes or No")
        if approval in ("yes", "true"):
            task["requires_approval"] = True
        for name in ("started", "completed"):
            if name in fields:
                line_no, value = fields[name]
                task[f"{name}_at"] = parse_time(value, f"line {line_no}")
        if "retries" in fields:
            line_no, value = fields["retries"]
            if not re.fullmatch(r"\d{1,6}", value.strip()):
                raise UserError(f"line {line_no}: Retries must be a whole number")
            task["retries"] = int(value)
        tasks.append(task)
    return tasks


def _rev(pair: tuple[int, str]) -> tuple[str, str]:
    return pair[1], f"line {pair[0]}"


def _step_id(block: tuple[int, int, str, dict[str, tuple[int, str]]]) -> str:
    if "id" in block[3]:
        value = decode_line(*_rev(block[3]["id"]))
        if value:
            return value
    return f"s{block[1]}"


def _status(field: tuple[int, str] | None, where: str) -> str:
    """A step's status: a label (``✅ done``) or a status name, and nothing more."""
    if field is None:
        return StepStatus.PENDING.value
    words = field[1].split()
    if len(words) > 1 and not any(ch.isalnum() for ch in words[0]):
        words = words[1:]  # the label's emoji
    try:
        return StepStatus.parse(" ".join(words)).value
    except ValueError:
        raise UserError(f"line {field[0]}: unknown status {field[1].strip()[:40]!r}") from None


def _dependencies(field: tuple[int, str] | None, ids: list[str], where: str) -> list[str]:
    if field is None or field[1].strip().lower() in ("", "none", "-"):
        return []
    deps = []
    for token in _split_refs(field[1]):
        ref = _STEP_REF.match(token)
        if ref:
            number = int(ref.group(1))
            if not 1 <= number <= len(ids):
                raise UserError(f"{where}: dependency {token!r} names no step")
            deps.append(ids[number - 1])
        else:
            deps.append(decode_line(token, f"line {field[0]}"))
    return deps


def _split_refs(text: str) -> list[str]:
    """Comma-separated references; JSON-quoted ones may contain commas."""
    tokens, decoder, i = [], json.JSONDecoder(), 0
    text = text.strip()
    while i < len(text):
        if text[i] == '"':
            try:
                _, end = decoder.raw_decode(text, i)
            except ValueError as exc:
                raise UserError(f"malformed quoted dependency in {text[:60]!r}") from exc
            tokens.append(text[i:end])
            i = end
        else:
            end = text.find(",", i)
            end = len(text) if end < 0 else end
            tokens.append(text[i:end].strip())
            i = end
        while i < len(text) and text[i] in ", ":
            i += 1
    return [t for t in tokens if t]


def _extra(line_no: int, value: str) -> dict[str, Any]:
    try:
        data = json.loads(value)
    except (ValueError, RecursionError) as exc:
        raise UserError(f"line {line_no}: Extra must be a JSON object") from exc
    if not isinstance(data, dict):
        raise UserError(f"line {line_no}: Extra must be a JSON object")
    return data


def _log(lines: list[str], span: tuple[int, int] | None) -> tuple[LogRow, ...]:
    if span is None:
        return ()
    rows = [(i, lines[i]) for i in range(*span) if lines[i].strip().startswith("|")]
    if not rows:
        return ()
    if len(rows) < 2 or not re.fullmatch(r"\|[\s:|-]+\|", rows[1][1].strip()):
        raise UserError(f"line {rows[0][0] + 1}: the log table needs a header and a separator")
    parsed = []
    for index, line in rows[2:]:
        cells = split_row(line, f"line {index + 1}")
        if len(cells) != 4:
            raise UserError(f"line {index + 1}: a log row has 4 cells, not {len(cells)}")
        parsed.append(LogRow(*cells))
    return tuple(parsed)
