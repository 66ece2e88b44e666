"""Tools an agent can call: the protocol, the planner, and plain functions as tools."""

from taskforce.tools.base import ApprovalRiskLevel, ToolProtocol, tool_spec, tool_spec_size
from taskforce.tools.function import FunctionTool
from taskforce.tools.planner import PlannerTool

__all__ = [
    "ApprovalRiskLevel",
    "FunctionTool",
    "PlannerTool",
    "ToolProtocol",
    "tool_spec",
    "tool_spec_size",
]
