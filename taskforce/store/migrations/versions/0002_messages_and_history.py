"""Message log and plan-change history (append-only, ordered by id).

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision: str | None = "0001"
branch_labels = None
depends_on = None


def _session_fk() -> sa.Column[str]:
    return sa.Column(
        "session_id",
        sa.String(128),
        sa.ForeignKey("tf_sessions.session_id", ondelete="CASCADE"),
        nullable=False,
    )


def upgrade() -> None:
    op.create_table(
        "tf_messages",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            primary_key=True,
            autoincrement=True,
        ),
        _session_fk(),
        sa.Column("created_at", sa.Double, nullable=False),
        sa.Column("body", sa.Text, nullable=False),
    )
    op.create_index("ix_tf_messages_session", "tf_messages", ["session_id", "id"])
    op.create_table(
        "tf_history",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            primary_key=True,
            autoincrement=True,
        ),
        _session_fk(),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("kind", sa.String(64), nullable=False),
        sa.Column("step_id", sa.String(256)),
        sa.Column("created_at", sa.Double, nullable=False),
        sa.Column("body", sa.Text, nullable=False),
    )
    op.create_index("ix_tf_history_session", "tf_history", ["session_id", "id"])


def downgrade() -> None:
    op.drop_table("tf_history")
    op.drop_table("tf_messages")
