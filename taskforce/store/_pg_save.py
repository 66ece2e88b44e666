"""PostgreSQL: a save whose base version is known, in one statement.

The usual save (a step changed in place, its events, the change notice) is three
statements after ``BEGIN``: the guarded bump of the session row (with the NOTIFY), the
step rows, the history rows. Here they are one: a data-modifying ``WITH`` whose step and
history parts write only if the bump matched (``EXISTS (SELECT 1 FROM bump)``), so a
stale base version writes nothing and the caller goes the locked way as before. Inside
:meth:`StateManager.update_state` the session row is already locked, so this takes the
round trips made under the lock from five to three (read, read the steps, this; then
COMMIT).

Parameters that PostgreSQL cannot type from their column are cast: a parameter used in
two places must get the same type in both.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import text

from taskforce.store._codec import StepRow
from taskforce.store._tx import Tx

History = tuple[str, str | None, str]  # kind, step id, body (JSON)

SAVE = text(
    """
WITH bump AS (
    UPDATE tf_sessions
    SET version = :b_new, title = :b_title, status = :b_status, steps_done = :b_steps_done,
        steps_total = :b_steps_total, updated_at = :b_updated_at, data = :b_data,
        plan_meta = :b_plan_meta
    WHERE session_id = :b_sid AND version = :b_old AND token = :b_token
    RETURNING pg_notify(CAST(:b_channel AS text),
                        concat(current_schema(), ' ', CAST(:b_payload AS text)))
), steps AS (
    UPDATE tf_steps SET status = s.status, body = s.body
    FROM unnest(CAST(:s_ids AS varchar[]), CAST(:s_statuses AS varchar[]),
                CAST(:s_bodies AS text[])) AS s(step_id, status, body)
    WHERE tf_steps.session_id = :b_sid AND tf_steps.step_id = s.step_id
        AND EXISTS (SELECT 1 FROM bump)
), events AS (
    INSERT INTO tf_history (session_id, version, kind, step_id, created_at, body)
    SELECT CAST(:b_sid AS varchar), CAST(:b_new AS integer), e.kind, e.step_id,
        CAST(:b_updated_at AS double precision), e.body
    FROM unnest(CAST(:e_kinds AS varchar[]), CAST(:e_steps AS varchar[]),
                CAST(:e_bodies AS text[])) WITH ORDINALITY AS e(kind, step_id, body, n)
    WHERE EXISTS (SELECT 1 FROM bump)
    ORDER BY e.n
)
SELECT count(*) FROM bump
"""
)


def save_at_once(
    tx: Tx, bump: Mapping[str, Any], rewrites: Sequence[StepRow], history: Sequence[History]
) -> bool:
    """Bump (announcing it), rewrite steps in place, record history; False: nothing written.

    `bump` holds the session row's parameters (``b_*``, with ``b_old``, ``b_token``,
    ``b_new``, ``b_channel`` and ``b_payload``).
    """
    params = {
        **bump,
        "s_ids": [row.step_id for row in rewrites],
        "s_statuses": [row.status for row in rewrites],
        "s_bodies": [row.body for row in rewrites],
        "e_kinds": [kind for kind, _, _ in history],
        "e_steps": [step_id for _, step_id, _ in history],
        "e_bodies": [body for _, _, body in history],
    }
    return int(tx.rows(SAVE, params)[0][0]) == 1
