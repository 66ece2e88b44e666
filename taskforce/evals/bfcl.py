"""BFCL multi-turn, run through BFCL's own checker (``--suite bfcl-multi-turn``).

Needs the ``bfcl-eval`` package installed *without* its dependencies (its normal install
pulls numpy, faiss and sentence-transformers; the stateful API classes and the
multi-turn checker need only the standard library, and ``MathAPI`` needs ``mpmath``)::

    pip install --no-deps bfcl-eval mpmath

Each user turn of an entry is one turn of one agent session. The entry's functions are
the agent's tools, described by BFCL's own function docs; each call runs against BFCL's
classes (initialised from the entry's ``initial_config``) and is recorded in BFCL's call
format (``cd(folder='document')``) for ``multi_turn_checker`` against the possible
answers shipped with the package.
"""

from __future__ import annotations

import ast
import json
import re
import sys
import uuid
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Any

from taskforce.errors import ConfigurationError
from taskforce.evals.mission import Mission, Suite, Verdict
from taskforce.models.base import ModelResponse, ToolCall
from taskforce.testing import reply
from taskforce.tools.base import ApprovalRiskLevel

__all__ = ["INSTALL", "BfclTool", "BfclWorld", "bfcl_suite", "to_call", "to_schema"]

INSTALL = "pip install --no-deps bfcl-eval mpmath"
CATEGORY = "multi_turn_base"
_UTILS = "bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils"
_TYPES = {"dict": "object", "float": "number", "tuple": "array", "any": None}


def _bfcl() -> Any:
    """The bfcl_eval checker modules, or a clear error naming the install command."""
    try:
        from bfcl_eval.constants import executable_backend_config as config
        from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_checker, multi_turn_utils
    except ImportError as exc:
        raise ConfigurationError(
            f"the bfcl-multi-turn suite needs the bfcl-eval package: {INSTALL} ({exc})"
        ) from None
    return config, multi_turn_checker, multi_turn_utils


def _lines(path: str) -> list[dict[str, Any]]:
    text = resources.files("bfcl_eval").joinpath(path).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def to_schema(node: Any) -> Any:
    """BFCL's parameter types as JSON Schema (``dict`` -> object, ``float`` -> number...)."""
    if isinstance(node, list):
        return [to_schema(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: to_schema(v) for k, v in node.items() if k != "type"}
    kind = node.get("type")
    if isinstance(kind, str):
        mapped = _TYPES.get(kind, kind)
        if mapped is not None:
            out["type"] = mapped
    if "properties" in node:  # property names are not schemas: keep them, convert values
        out["properties"] = {k: to_schema(v) for k, v in node["properties"].items()}
    return out


def to_call(name: str, arguments: dict[str, Any]) -> str:
    """A call in BFCL's format: ``name(key='value', n=3)`` (Python literals)."""
    return f"{name}(" + ",".join(f"{k}={v!r}" for k, v in arguments.items()) + ")"


class BfclTool:
    """One BFCL function as a taskforce tool, executed against the world's instances."""

    requires_approval = False
    approval_risk_level = ApprovalRiskLevel.LOW
    supports_parallelism = False  # BFCL's state is order-sensitive: run calls in order

    def __init__(self, doc: dict[str, Any], world: BfclWorld) -> None:
        self.name = str(doc["name"])
        self.description = str(doc.get("description", ""))
        self.parameters_schema: dict[str, Any] = to_schema(doc.get("parameters") or {})
        self.parameters_schema.setdefault("type", "object")
        self._world = world

    def validate_params(self, **params: Any) -> tuple[bool, str | None]:
        """Required parameters present, no unknown ones."""
        known = self.parameters_schema.get("properties") or {}
        if missing := [p for p in self.parameters_schema.get("required", []) if p not in params]:
            return False, f"missing required parameter {missing[0]!r}"
        if unknown := [p for p in params if p not in known]:
            return False, f"unexpected parameter {unknown[0]!r}; parameters: {', '.join(known)}"
        return True, None

    def get_approval_preview(self, **params: Any) -> str:
        """The call in BFCL's format."""
        return to_call(self.name, params)

    async def execute(self, **params: Any) -> dict[str, Any]:
        """Run the call against BFCL's instances; record it for the checker."""
        output = self._world.run(to_call(self.name, params))
        if output.startswith("Error during execution"):
            return {"success": False, "error": output}
        try:
            data = json.loads(output)
        except ValueError:
            data = None
        if isinstance(data, dict) and set(data) == {"error"}:  # BFCL's own error replies
            return {"success": False, "error": str(data["error"])}
        return {"success": True, "output": data if isinstance(data, dict | list) else output}


class BfclWorld:
    """One entry's BFCL instances, the calls made per turn, and the checker."""

    def __init__(self, entry: dict[str, Any], docs: list[dict[str, Any]], truth: list[list[str]]):
        self.entry = entry
        self.docs = docs
        self.truth = truth
        self.calls: list[list[list[str]]] = []
        self.run_id = f"taskforce_{uuid.uuid4().hex}"

    def tools(self) -> list[BfclTool]:
        """BFCL's functions of the entry's classes (less its excluded ones)."""
        return [BfclTool(doc, self) for doc in self.docs]

    def begin_turn(self, index: int) -> None:
        """A new user turn: its calls are recorded apart."""
        while len(self.calls) <= index:
            self.calls.append([])

    def run(self, call_text: str) -> str:
        """Execute one call against this run's instances (kept by BFCL between calls)."""
        if not self.calls:
            self.begin_turn(0)
        self.calls[-1].append([call_text])
        _, _, utils = _bfcl()
        results, _ = utils.execute_multi_turn_func_call(
            [call_text], self.entry["initial_config"], self.entry["involved_classes"],
            self.run_id, self.entry["id"], long_context=False, is_evaL_run=False,
        )  # fmt: skip
        return str(results[0])

    def check(self) -> Verdict:
        """BFCL's multi_turn_checker on the recorded calls; BFCL's instances are freed."""
        _, checker, _ = _bfcl()
        decoded = self.calls + [[] for _ in range(len(self.truth) - len(self.calls))]
        try:
            outcome = checker.multi_turn_checker(
                decoded, self.truth, self.entry, CATEGORY, f"{self.run_id}_check"
            )
        finally:
            self._free()
        if outcome.get("valid"):
            return Verdict(True, "BFCL multi_turn_checker: valid")
        return Verdict(False, f"BFCL: {outcome.get('error_type')}: {outcome.get('error_message')}")

    def snapshot(self) -> dict[str, Any]:
        """The calls per turn, for transcripts."""
        return {"calls": self.calls, "ground_truth": self.truth}

    def _free(self) -> None:
        namespace = vars(sys.modules[_UTILS])
        for name in [n for n in namespace if self.run_id in n]:
            del namespace[name]


def _reference(truth: list[list[str]], docs: list[dict[str, Any]]) -> tuple[ModelResponse, ...]:
    """The ground truth as model turns: each call in turn, then an answer per user turn."""
    order = {d["name"]: list((d.get("parameters") or {}).get("properties") or {}) for d in docs}
    script: list[ModelResponse] = []
    for turn in truth:
        for text in turn:
            node = ast.parse(text, mode="eval").body
            assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            name = node.func.id
            args = {order[name][i]: ast.literal_eval(a) for i, a in enumerate(node.args)}
            args |= {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
            script.append(ModelResponse(tool_calls=(ToolCall("", name, json.dumps(args)),)))
        script.append(reply("Done."))
    return tuple(script)


def _turn_text(turn: list[dict[str, Any]]) -> str:
    return "\n".join(str(m.get("content", "")) for m in turn if m.get("role") == "user")


@cache
def _data() -> tuple[list[dict[str, Any]], dict[str, list[list[str]]], dict[str, Any]]:
    config, _, _ = _bfcl()
    entries = _lines(f"data/BFCL_v4_{CATEGORY}.json")
    answers = {
        a["id"]: a["ground_truth"] for a in _lines(f"data/possible_answer/BFCL_v4_{CATEGORY}.json")
    }
    docs = {
        cls: _lines(f"data/multi_turn_func_doc/{file}")
        for cls, file in config.MULTI_TURN_FUNC_DOC_FILE_MAPPING.items()
    }
    return entries, answers, docs


def _mission(entry: dict[str, Any], truth: list[list[str]], docs: list[dict[str, Any]]) -> Mission:
    def make() -> BfclWorld:
        return BfclWorld(entry, docs, truth)

    def check(world: BfclWorld, _answer: str) -> Verdict:
        return world.check()

    turns = tuple(_turn_text(t) for t in entry["question"])
    tags = tuple(entry["involved_classes"])
    return Mission(entry["id"], turns, make, check, _reference(truth, docs), tags)


def bfcl_suite(ids: Callable[[str], bool] | None = None) -> Suite:
    """BFCL v4 ``multi_turn_base`` (200 entries, in BFCL's order) as a suite.

    Raises:
        ConfigurationError: bfcl-eval is not installed (the message says how).
    """
    entries, answers, all_docs = _data()
    missions = []
    for entry in entries:
        if ids is not None and not ids(entry["id"]):
            continue
        excluded = set(entry.get("excluded_function") or [])
        docs = [
            d
            for cls in entry["involved_classes"]
            for d in all_docs[cls]
            if d["name"] not in excluded
        ]
        missions.append(_mission(entry, answers[entry["id"]], docs))
    ordered = sorted(missions, key=lambda m: int(re.sub(r"\D", "", m.id) or 0))
    return Suite("bfcl-multi-turn", tuple(ordered), description="BFCL v4 multi_turn_base")
