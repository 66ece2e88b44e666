r"""Session state <-> rows: JSON encoding, the one-row-per-step split, and limits.

Pure functions, no SQLAlchemy: the read-only sqlite3 path shares them with the StateManager.
JSON goes into TEXT columns. ``json`` always escapes control characters, so a NUL byte in
any string is stored as the six characters ``\\u0000`` and read back losslessly on SQLite
and on PostgreSQL (which refuses a raw NUL in text). Plain columns (title, status, step id)
are listing aids only; the JSON holds the truth.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from taskforce.errors import StateCorruptError, StatePayloadError
from taskforce.plan import Plan
from taskforce.plan.state import step_state, write_state
from taskforce.plan.step import StepStatus
from taskforce.plan.text import scrub

TITLE_MAX = 200
STATUS_MAX = 64
STEP_ID_MAX = 256


class StepRow(NamedTuple):
    """One stored plan step. ``body`` is the JSON of the whole step dict.

    A named tuple: a 1,000-step read builds 1,000 of them (a frozen dataclass took 3x longer).
    """

    step_id: str
    position: int
    status: str | None
    body: str

    def values(self) -> dict[str, Any]:
        """The step dict (parsed from ``body``)."""
        value: dict[str, Any] = json.loads(self.body)
        return value


class Memo(dict[str, tuple[object, StepRow]]):
    """Step id -> (``repr`` of the step dict, or the plan step) and its row.

    Lets unchanged steps skip encoding (a plan step is immutable: the same object, the
    same row).

    ``last``: the :class:`~taskforce.plan.Plan` steps the rows were made from, the rows
    and their size in bytes; a plan changed in place from those steps (a status change)
    is encoded by looking at its changed positions only.

    ``decoded``: every entry holds the plan step its row's body reads as (the claims path
    keeps these, so a row it finds unchanged is not decoded again); ``plan``: the stored
    plan-level JSON and the :class:`~taskforce.plan.Plan` that it and the rows of ``last``
    read as.
    """

    last: tuple[tuple[Any, ...], tuple[StepRow, ...], int] | None = None
    decoded: bool = False
    plan: tuple[str | None, Any] | None = None


@dataclass(frozen=True)
class EncodedState:
    """A session state split into the values of its rows."""

    data: str
    plan_meta: str | None
    steps: tuple[StepRow, ...]
    title: str | None
    status: str | None
    steps_done: int
    nbytes: int
    memo: Memo = field(default_factory=Memo)
    edited: Edited = None
    """``(rows, positions)``: `steps` are these rows with only these positions replaced
    (a plan changed in place, encoded over the memo of a save of `rows`), so a diff with
    `rows` looks at those positions only."""


Edited = tuple[tuple[StepRow, ...], tuple[int, ...]] | None
_ENCODE = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode
_ENCODE_ASCII = json.JSONEncoder(ensure_ascii=True, allow_nan=False, separators=(",", ":")).encode
_SCALARS = (str, int, float, bool, type(None))


def _check_keys(value: Any, path: str) -> None:
    """Refuse non-string keys, which ``json`` would silently turn into strings."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, child in item.items():
                if type(key) is not str:
                    raise StatePayloadError(f"{path}: key {key!r} is not a string (JSON needs str)")
                if not isinstance(child, _SCALARS):
                    stack.append(child)
        elif isinstance(item, list | tuple):
            stack.extend(child for child in item if not isinstance(child, _SCALARS))


def dumps(value: Any, what: str) -> str:
    """Encode ``value`` as compact JSON, losslessly (lone surrogates fall back to ASCII).

    Raises:
        StatePayloadError: not JSON-serialisable (type, NaN/Infinity, non-string keys).
    """
    try:
        text = _ENCODE(value)  # first: it refuses circular references
    except (TypeError, ValueError, RecursionError) as exc:
        raise StatePayloadError(f"{what} is not JSON-serialisable: {exc}") from exc
    _check_keys(value, what)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = _ENCODE_ASCII(value)
    return text


def loads(text: Any, session_id: str, what: str) -> Any:
    """Decode stored JSON; anything unreadable is a :class:`StateCorruptError`."""
    try:
        if not isinstance(text, str):
            raise TypeError(f"expected text, found {type(text).__name__}")
        return json.loads(text)
    except (TypeError, ValueError, RecursionError) as exc:
        raise StateCorruptError(
            f"session {session_id!r}: stored {what} is corrupt ({exc}); nothing was changed"
        ) from exc


def nbytes(text: str) -> int:
    """UTF-8 size of ``text``."""
    return len(text.encode("utf-8", "surrogatepass"))


def check_size(size: int, limit: int, what: str) -> None:
    """Refuse payloads above ``limit`` bytes with :class:`StatePayloadError`."""
    if size > limit:
        raise StatePayloadError(
            f"{what} is {size} bytes of JSON; the limit is {limit} bytes (max_payload_bytes)"
        )


def label(value: Any, limit: int) -> str | None:
    """A listing-column copy of a string: NUL and lone surrogates shown as U+FFFD, cut.

    These columns hold raw text (the JSON keeps the truth, escaped), so nothing that
    cannot be encoded may reach them.
    """
    if not isinstance(value, str):
        return None
    return scrub(value.replace("\x00", "\ufffd")[:limit])


def _split_steps(tasks: Any, memo: Memo) -> tuple[tuple[StepRow, ...], Memo, int]:
    """Rows for the steps, the memo for next time, and the total body size in bytes."""
    if not isinstance(tasks, list | tuple):
        raise StatePayloadError('state["plan"]["tasks"] must be a list of step objects')
    rows: list[StepRow] = []
    new_memo = Memo()
    size = 0
    for position, step in enumerate(tasks):
        step_id = step.get("id") if isinstance(step, dict) else None
        text = repr(step) if type(step_id) is str else None
        known = memo.get(step_id) if text is not None else None  # type: ignore[arg-type]
        # ``repr`` is C-fast and type-exact (1, 1.0 and True differ), so an equal repr means
        # the same JSON body: marking one step done does not re-encode the whole plan.
        if known is not None and known[0] == text and step_id not in new_memo:
            row = known[1]
            if row.position != position:
                row = row._replace(position=position)
        else:
            row = _encode_step(step, position, new_memo)
        size += len(row.body) if row.body.isascii() else nbytes(row.body)
        rows.append(row)
        new_memo[row.step_id] = (text or "", row)
    return tuple(rows), new_memo, size


def _encode_step(step: Any, position: int, seen: Mapping[str, object]) -> StepRow:
    where = f'state["plan"]["tasks"][{position}]'
    if not isinstance(step, Mapping):
        raise StatePayloadError(f"{where} must be an object, not {type(step).__name__}")
    step_id = step.get("id")
    if not isinstance(step_id, str) or not 0 < len(step_id) <= STEP_ID_MAX:
        raise StatePayloadError(f'{where}["id"] must be a string of 1-{STEP_ID_MAX} chars')
    if "\x00" in step_id or scrub(step_id) != step_id:
        raise StatePayloadError(f'{where}["id"] contains a NUL character or a lone surrogate')
    if step_id in seen:
        raise StatePayloadError(f"{where}: duplicate step id {step_id!r}")
    body = dumps(dict(step), where)
    return StepRow(step_id, position, label(step.get("status"), STATUS_MAX), body)


def _split_plan(plan: Any, memo: Memo) -> tuple[tuple[StepRow, ...], Memo, int, str, Edited]:
    """Rows, memo, body size and plan JSON of a :class:`~taskforce.plan.Plan` value.

    Its steps are immutable, so a step that is the very object the memo holds has not
    changed: only new and changed steps are turned into JSON. A memo made from step dicts
    (what a transaction read) is matched by the ``repr`` of each step's state instead.
    """
    last = memo.last if isinstance(memo, Memo) else None
    moved = plan.changed_from(last[0]) if last is not None else None
    if last is not None and moved is not None:  # only the changed positions
        rows, new_memo, size = list(last[1]), Memo(memo), last[2]
        for position in moved:
            step = plan.steps[position]
            row = _encode_step(step_state(step), position, {})  # same ids: no duplicate
            size += _size(row) - _size(rows[position])
            rows[position] = row
            new_memo[step.id] = (step, row)
        return (*_planned(plan, rows, new_memo, size), (last[1], moved))
    rows = []
    new_memo = Memo()
    size = 0
    for position, step in enumerate(plan.steps):
        step_id: str = step.id
        known = memo.get(step_id)
        state = None
        if known is not None and known[0] is not step and type(known[0]) is str:
            # a memo of step dicts (a load, a save of dicts): the same repr, the same body
            state = step_state(step)
            if known[0] != repr(state):
                known = None
        if (
            known is not None
            and (state is not None or known[0] is step)
            and step_id not in new_memo
        ):
            row = known[1]
            if row.position != position:
                row = row._replace(position=position)
        else:
            row = _encode_step(step_state(step) if state is None else state, position, new_memo)
        size += _size(row)
        rows.append(row)
        new_memo[row.step_id] = (step, row)
    return (*_planned(plan, rows, new_memo, size), None)


def _planned(
    plan: Any, rows: list[StepRow], memo: Memo, size: int
) -> tuple[tuple[StepRow, ...], Memo, int, str]:
    memo.last = (plan.steps, tuple(rows), size)
    numbers = (plan.version, plan.revision, plan.next_id)
    if not plan.extra and all(type(n) is int for n in numbers):  # the usual case, written
        revision = f'"revision":{plan.revision},' if plan.revision else ""
        meta = f'{{"version":{plan.version},{revision}"next_id":{plan.next_id}}}'  # as dumps
        return memo.last[1], memo, size, meta
    state = write_state((), plan.version, plan.revision, plan.next_id, plan.extra)
    del state["tasks"]
    return memo.last[1], memo, size, dumps(state, 'state["plan"]')


def _size(row: StepRow) -> int:
    return len(row.body) if row.body.isascii() else nbytes(row.body)


def rows_size(rows: Iterable[StepRow]) -> int:
    """The size in bytes of the step rows' bodies (as an encode counts it)."""
    return sum(map(_size, rows))


def _plan_value(value: Any) -> Any:
    """``value`` if it is a :class:`~taskforce.plan.Plan`."""
    return value if isinstance(value, Plan) else None


def make_memo(tasks: Sequence[Any], rows: Sequence[StepRow]) -> Memo:
    """The memo for steps whose dicts (as given or as loaded) produced these rows."""
    return Memo(
        (row.step_id, (repr(task), row))
        for task, row in zip(tasks, rows, strict=True)
        if isinstance(task, dict)
    )


def encode_state(state: Any, memo: Memo | None = None) -> EncodedState:
    """Split a session state into row values (the plan's steps one row each).

    ``state["plan"]`` is split when it is an object with a ``"tasks"`` key, or a
    :class:`~taskforce.plan.Plan` (stored as its state); any other value is kept as opaque
    JSON. The input key ``"version"`` is not stored (it is the session's).
    ``memo`` (from an earlier encode or load of this session) lets unchanged steps skip
    encoding; the result carries the memo for the next call.

    Raises:
        StatePayloadError: not an object, not JSON-serialisable, or malformed plan steps.
    """
    if not isinstance(state, Mapping):
        raise StatePayloadError(f"state must be a JSON object (dict), not {type(state).__name__}")
    rest = {key: value for key, value in state.items() if key != "version"}
    plan = rest.get("plan")
    plan_meta: str | None = None
    steps: tuple[StepRow, ...] = ()
    new_memo = Memo()
    steps_size = 0
    edited: Edited = None
    if (value := _plan_value(plan)) is not None:
        steps, new_memo, steps_size, plan_meta, edited = _split_plan(value, memo or Memo())
        del rest["plan"]
    elif isinstance(plan, Mapping) and "tasks" in plan:
        steps, new_memo, steps_size = _split_steps(plan["tasks"], memo or Memo())
        plan_meta = dumps({k: v for k, v in plan.items() if k != "tasks"}, 'state["plan"]')
        del rest["plan"]
    data = dumps(rest, "state")
    title = label(state.get("title"), TITLE_MAX) or label(state.get("mission"), TITLE_MAX)
    size = nbytes(data) + nbytes(plan_meta or "") + steps_size
    if value is not None:
        done = value.progress()[0]
    else:
        done = sum(1 for s in steps if s.status in _FINISHED)  # as Plan.progress() counts
    status = label(state.get("status"), STATUS_MAX)
    return EncodedState(data, plan_meta, steps, title, status, done, size, new_memo, edited)


_FINISHED = frozenset(s.value for s in StepStatus if s.is_finished)


def decode_state(
    session_id: str, data: Any, plan_meta: Any, step_bodies: Iterable[Any], version: int
) -> dict[str, Any]:
    """Rebuild the state dict from its rows; :class:`StateCorruptError` if a row is bad."""
    state = loads(data, session_id, "state")
    if not isinstance(state, dict):
        raise StateCorruptError(f"session {session_id!r}: stored state is not a JSON object")
    if plan_meta is not None:
        plan = loads(plan_meta, session_id, "plan")
        if not isinstance(plan, dict):
            raise StateCorruptError(f"session {session_id!r}: stored plan is not a JSON object")
        tasks = [loads(body, session_id, "plan step") for body in step_bodies]
        if not all(isinstance(task, dict) for task in tasks):
            raise StateCorruptError(f"session {session_id!r}: a stored plan step is not an object")
        plan["tasks"] = tasks
        state["plan"] = plan
    state["version"] = version
    return state
