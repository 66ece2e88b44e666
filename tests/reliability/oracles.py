"""What must hold after any hostile input: checked on the real database and the output.

* nothing unencodable in storage: every text value of every taskforce table is valid
  UTF-8, and every JSON value in it decodes to strings that encode again;
* a refused command changes nothing: the database's content is the same before and after;
* nothing raw on the terminal (see ``tests.terminal.raw_controls``);
* no unexpected exception: only the documented exit codes, and never a traceback.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections import Counter
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

TABLES = ("tf_sessions", "tf_steps", "tf_messages", "tf_history")
DOCUMENTED_EXITS = {0, 2, 3, 4, 5, 6, 7, 8, 130}
"""Exit codes with a meaning (README); 1 means an unexpected error or a failed run."""


def _strings(value: Any) -> Iterator[str]:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def unencodable(db: Path) -> list[str]:
    """Stored values that are not valid UTF-8 or hold lone surrogates ([] is clean)."""
    if not db.exists():
        return []
    found: list[str] = []
    with closing(sqlite3.connect(db)) as conn:
        conn.text_factory = bytes
        tables = {r[0].decode() for r in conn.execute("SELECT name FROM sqlite_master")}
        for table in (t for t in TABLES if t in tables):
            for row in conn.execute(f"SELECT * FROM {table}"):
                for raw in row:
                    if not isinstance(raw, bytes):
                        continue
                    try:
                        text = raw.decode("utf-8")
                    except UnicodeDecodeError:
                        found.append(f"{table}: invalid UTF-8 {raw[:40]!r}")
                        continue
                    try:
                        value: Any = json.loads(text)
                    except ValueError:
                        value = text
                    for string in _strings(value):
                        try:
                            string.encode("utf-8")
                        except UnicodeEncodeError:
                            found.append(f"{table}: lone surrogate in {string[:40]!r}")
    return found


def snapshot(db: Path) -> str:
    """A digest of everything the taskforce tables hold (to compare before and after)."""
    if not db.exists():
        return "absent"
    digest = hashlib.sha256()
    with closing(sqlite3.connect(db)) as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        for table in (t for t in TABLES if t in tables):
            for row in conn.execute(f"SELECT * FROM {table} ORDER BY 1"):
                digest.update(repr(row).encode("utf-8", "backslashreplace"))
    return digest.hexdigest()


def statuses(db: Path) -> Counter[str]:
    """How many sessions have each status (from the stored state)."""
    counts: Counter[str] = Counter()
    if not db.exists():
        return counts
    with closing(sqlite3.connect(db)) as conn:
        for (status,) in conn.execute("SELECT status FROM tf_sessions WHERE version > 0"):
            counts[str(status)] += 1
    return counts
