"""Planning, documents and the CLI's store calls stay light: no SQLAlchemy, litellm, PyYAML."""

from __future__ import annotations

import subprocess
import sys


def test_packages_import_nothing_heavy() -> None:
    code = (
        "import sys, taskforce.planning, taskforce.documents, taskforce.cli._store_calls\n"
        "print(sorted(m for m in ('sqlalchemy', 'litellm', 'yaml', 'taskforce.store.manager')"
        " if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
