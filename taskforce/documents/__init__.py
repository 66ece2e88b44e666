"""Plan documents: Plan.md (write and read back) and the dashboard (summary, JSON, Markdown).

* :mod:`~taskforce.documents.plan_md` — :class:`PlanDocument`, :func:`render_plan_md`.
* :mod:`~taskforce.documents.plan_md_read` — :func:`parse_plan_md`.
* :mod:`~taskforce.documents.from_session` — documents from plain session data.
* :mod:`~taskforce.documents.dashboard` — :func:`summarize`, :func:`render_dashboard_md`.
* :mod:`~taskforce.documents.store_io` — async helpers over a ``StateManager``: export one
  plan, export all into a folder (``Done/`` for completed ones), import, dashboard.

All rendering takes ``now`` (where a time is needed) as a parameter: the same input
gives byte-identical output.
"""

from __future__ import annotations

from taskforce.documents.dashboard import (
    DashboardRow,
    DashboardSummary,
    render_dashboard_md,
    summarize,
)
from taskforce.documents.from_session import (
    document_from_session,
    log_row,
    session_status,
    state_from_document,
)
from taskforce.documents.plan_md import Criterion, LogRow, PlanDocument, render_plan_md
from taskforce.documents.plan_md_read import parse_plan_md
from taskforce.documents.store_io import (
    ExportReport,
    dashboard_summary,
    export_all,
    export_plan_md,
    file_name,
    import_plan_md,
    load_plan_document,
    unique_file_names,
)

__all__ = [
    "Criterion",
    "DashboardRow",
    "DashboardSummary",
    "ExportReport",
    "LogRow",
    "PlanDocument",
    "dashboard_summary",
    "document_from_session",
    "export_all",
    "export_plan_md",
    "file_name",
    "import_plan_md",
    "load_plan_document",
    "log_row",
    "parse_plan_md",
    "render_dashboard_md",
    "render_plan_md",
    "session_status",
    "state_from_document",
    "summarize",
    "unique_file_names",
]
