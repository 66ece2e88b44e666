"""The built-in demo tools: a calculator and a workspace folder of files and notes.

They are real tools any model can use (``taskforce run --demo-tools``); the offline model
uses them for the plan steps they fit, so a first run without a key does real work.
"""

from __future__ import annotations

import os

from taskforce.tools.base import ToolProtocol
from taskforce.tools.calculator import calculator_tool
from taskforce.tools.workspace import Workspace

DEMO_TOOL_NAMES = ("calculator", "write_file", "read_file", "list_files", "add_note")
"""The names of the tools :func:`demo_tools` returns, in that order."""


def demo_tools(workspace: Workspace | str | os.PathLike[str]) -> list[ToolProtocol]:
    """The calculator and the workspace tools over `workspace` (a folder or a Workspace)."""
    folder = workspace if isinstance(workspace, Workspace) else Workspace(workspace)
    return [calculator_tool(), *folder.tools()]
