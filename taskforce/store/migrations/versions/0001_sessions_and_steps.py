"""Sessions and plan steps (one row per step).

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision: str | None = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tf_sessions",
        sa.Column("session_id", sa.String(128), primary_key=True),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("token", sa.String(32), nullable=False),
        sa.Column("title", sa.String(200)),
        sa.Column("status", sa.String(64)),
        sa.Column("steps_done", sa.Integer, nullable=False),
        sa.Column("steps_total", sa.Integer, nullable=False),
        sa.Column("created_at", sa.Double, nullable=False),
        sa.Column("updated_at", sa.Double, nullable=False),
        sa.Column("data", sa.Text, nullable=False),
        sa.Column("plan_meta", sa.Text),
    )
    op.create_index("ix_tf_sessions_updated", "tf_sessions", ["updated_at", "session_id"])
    op.create_table(
        "tf_steps",
        sa.Column(
            "session_id",
            sa.String(128),
            sa.ForeignKey("tf_sessions.session_id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("step_id", sa.String(256), primary_key=True),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("status", sa.String(64)),
        sa.Column("body", sa.Text, nullable=False),
    )
    op.create_index("ix_tf_steps_position", "tf_steps", ["session_id", "position"])


def downgrade() -> None:
    op.drop_table("tf_steps")
    op.drop_table("tf_sessions")
