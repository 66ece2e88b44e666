"""Plans in other agents' formats (Markdown, Codex, Claude Code, ACP): the public path.

The converters live in :mod:`taskforce.plan.formats`; this module keeps the import path
the README documents (``from taskforce.converters import to_markdown``).
"""

from taskforce.plan.formats import (
    PRIORITIES,
    PlanLike,
    from_acp,
    from_codex,
    from_markdown,
    from_todowrite,
    to_acp,
    to_codex,
    to_markdown,
    to_todowrite,
)

__all__ = [
    "PRIORITIES",
    "PlanLike",
    "from_acp",
    "from_codex",
    "from_markdown",
    "from_todowrite",
    "to_acp",
    "to_codex",
    "to_markdown",
    "to_todowrite",
]
