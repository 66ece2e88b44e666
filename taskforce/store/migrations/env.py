"""Alembic environment: runs on the connection the StateManager hands over (no ini file)."""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

connection: Connection | None = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError(
        "taskforce migrations run through taskforce.store (StateManager.upgrade / "
        "`taskforce db upgrade`), which supplies the database connection"
    )
context.configure(
    connection=connection,
    render_as_batch=connection.dialect.name == "sqlite",
    transaction_per_migration=False,
)
with context.begin_transaction():
    context.run_migrations()
