"""The rule table behind the goal planner: rules keyed by (domain, verb), and loading them.

A rule says how a parametric goal becomes an action::

    {"domain": "browser", "verb": "navigate",
     "intent": "browser_control", "action_class": "actuate",
     "description_template": "navigate:{url}",
     "required_params": ["url"],
     "optional_params": ["new_tab"],
     "default_params": {"new_tab": false},
     "allowed_values": {"new_tab": [true, false]},
     "requires_approval": false}

Tables come from a Python dict (keys ``(domain, verb)`` or ``"domain.verb"``), from a
JSON file (``{"rules": [...]}`` or a list of rules), or from a YAML file of the same
shape (PyYAML, imported only then). Every rule is checked when the table is built, so a
typo fails at load time with the rule and key named, not at planning time.
:func:`example_rules` loads the table shipped with taskforce (``example_rules.json``).
"""

from __future__ import annotations

import json
import re
import string
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any

from taskforce.errors import ConfigurationError

_KEYS = frozenset(
    {
        "domain",
        "verb",
        "intent",
        "action_class",
        "description_template",
        "required_params",
        "optional_params",
        "default_params",
        "allowed_values",
        "requires_approval",
    }
)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,63}")
_FIELD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")


def freeze(value: Any) -> Any:
    """A deep, read-only copy of JSON data (dicts become mapping proxies, lists tuples)."""
    if isinstance(value, Mapping):
        return MappingProxyType({str(k): freeze(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return tuple(freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """Plain, mutable JSON data from a value made by :func:`freeze`."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [thaw(v) for v in value]
    return value


@dataclass(frozen=True, slots=True)
class PlannerRule:
    """How goals of one (domain, verb) become an action."""

    domain: str
    verb: str
    intent: str
    action_class: str
    description_template: str
    required_params: tuple[str, ...] = ()
    optional_params: tuple[str, ...] = ()
    default_params: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    allowed_values: Mapping[str, tuple[Any, ...]] = field(
        default_factory=lambda: MappingProxyType({})
    )
    requires_approval: bool = False

    @property
    def key(self) -> tuple[str, str]:
        """``(domain, verb)``."""
        return (self.domain, self.verb)

    @property
    def known_params(self) -> frozenset[str]:
        """Every parameter the rule accepts."""
        return frozenset(
            (
                *self.required_params,
                *self.optional_params,
                *self.default_params,
                *self.allowed_values,
            )
        )


class RuleTable(Mapping[tuple[str, str], PlannerRule]):
    """An immutable table of :class:`PlannerRule` keyed by ``(domain, verb)``."""

    def __init__(self, rules: Mapping[tuple[str, str], PlannerRule] | None = None) -> None:
        self._rules = dict(rules or {})

    def __getitem__(self, key: tuple[str, str]) -> PlannerRule:
        return self._rules[key]

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(sorted(self._rules))

    def __len__(self) -> int:
        return len(self._rules)

    def __repr__(self) -> str:
        return f"RuleTable({len(self._rules)} rules)"

    @classmethod
    def from_dict(cls, table: Mapping[Any, Any]) -> RuleTable:
        """A table from ``{(domain, verb): spec}`` or ``{"domain.verb": spec}``."""
        if not isinstance(table, Mapping):
            raise ConfigurationError("a rules table must be a dict keyed by (domain, verb)")
        records = []
        for key, spec in table.items():
            if isinstance(key, tuple) and len(key) == 2:
                domain, verb = key
            elif isinstance(key, str) and key.count(".") == 1:
                domain, verb = key.split(".")
            else:
                raise ConfigurationError(
                    f"rule key {key!r} must be (domain, verb) or 'domain.verb'"
                )
            if not isinstance(spec, Mapping):
                raise ConfigurationError(f"rule {key!r} must be a dict")
            records.append({"domain": domain, "verb": verb, **spec})
        return cls.from_records(records)

    @classmethod
    def from_records(cls, records: Any) -> RuleTable:
        """A table from a list of rule objects (each with ``domain`` and ``verb``)."""
        if isinstance(records, Mapping) and "rules" in records:
            records = records["rules"]
        if not isinstance(records, list):
            raise ConfigurationError('rules must be a list, or an object {"rules": [...]}')
        rules: dict[tuple[str, str], PlannerRule] = {}
        for number, record in enumerate(records, start=1):
            rule = _build(record, number)
            if rule.key in rules:
                raise ConfigurationError(f"rule {number}: ({rule.domain}, {rule.verb}) is repeated")
            rules[rule.key] = rule
        return cls(rules)


def load_rules(source: str | Path | Mapping[Any, Any]) -> RuleTable:
    """A rule table from a dict, or from a ``.json`` / ``.yaml`` / ``.yml`` file."""
    if isinstance(source, Mapping):
        if "rules" in source:
            return RuleTable.from_records(source)
        return RuleTable.from_dict(source)
    path = Path(source)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigurationError(f"cannot read rules file {str(path)!r}: {exc}") from exc
    if path.suffix.lower() in {".yaml", ".yml"}:
        try:
            import yaml  # type: ignore[import-untyped]
        except ImportError as exc:  # pragma: no cover - PyYAML ships with litellm
            raise ConfigurationError("YAML rules need PyYAML: pip install pyyaml") from exc
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise ConfigurationError(f"{path.name}: invalid YAML: {exc}") from exc
    else:
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise ConfigurationError(f"{path.name}: invalid JSON: {exc}") from exc
    return RuleTable.from_records(data)


def example_rules() -> RuleTable:
    """The example table shipped with taskforce (browser, file and system goals)."""
    text = resources.files("taskforce.planning").joinpath("example_rules.json").read_text("utf-8")
    return RuleTable.from_records(json.loads(text))


def _names(value: Any, where: str, key: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list | tuple) or not all(
        isinstance(v, str) and _FIELD.fullmatch(v) for v in value
    ):
        raise ConfigurationError(f"{where}: {key} must be a list of parameter names")
    return tuple(dict.fromkeys(value))


def _build(record: Any, number: int) -> PlannerRule:
    if not isinstance(record, Mapping):
        raise ConfigurationError(f"rule {number} must be an object")
    domain, verb = record.get("domain"), record.get("verb")
    where = f"rule {number} ({domain}, {verb})"
    unknown = sorted(str(k) for k in record if k not in _KEYS)
    if unknown:
        raise ConfigurationError(f"{where}: unknown key {unknown[0]!r}")
    for key in ("domain", "verb", "intent", "action_class"):
        value = record.get(key)
        if not isinstance(value, str) or not _NAME.fullmatch(value):
            raise ConfigurationError(f"{where}: {key} must be a short name, not {value!r}")
    template = record.get("description_template")
    if not isinstance(template, str) or not template.strip() or len(template) > 500:
        raise ConfigurationError(f"{where}: description_template must be a non-empty string")
    required = _names(record.get("required_params"), where, "required_params")
    optional = _names(record.get("optional_params"), where, "optional_params")
    defaults = record.get("default_params") or {}
    allowed = record.get("allowed_values") or {}
    if not isinstance(defaults, Mapping) or not all(_FIELD.fullmatch(str(k)) for k in defaults):
        raise ConfigurationError(f"{where}: default_params must map parameter names to values")
    if not isinstance(allowed, Mapping) or not all(
        isinstance(v, list | tuple) and v for v in allowed.values()
    ):
        raise ConfigurationError(f"{where}: allowed_values must map names to non-empty lists")
    approval = record.get("requires_approval", False)
    if not isinstance(approval, bool):
        raise ConfigurationError(f"{where}: requires_approval must be true or false")
    try:
        json.dumps([defaults, allowed])
    except (TypeError, ValueError) as exc:
        raise ConfigurationError(f"{where}: defaults and allowed values must be JSON") from exc
    for name, value in defaults.items():
        if name in allowed and value not in allowed[name]:
            raise ConfigurationError(f"{where}: default {name}={value!r} is not an allowed value")
    known = {*required, *optional, *defaults, *allowed}
    try:
        fields = [(f, c, s) for _, f, s, c in string.Formatter().parse(template) if f is not None]
    except ValueError as exc:
        raise ConfigurationError(f"{where}: bad description_template: {exc}") from exc
    for name, conversion, spec in fields:
        if conversion or spec:
            raise ConfigurationError(
                f"{where}: description_template fields take no conversion or format spec"
            )
        if not _FIELD.fullmatch(name) or name not in known:
            raise ConfigurationError(
                f"{where}: description_template field {{{name}}} must be a declared parameter"
            )
    return PlannerRule(
        domain=str(domain),
        verb=str(verb),
        intent=str(record["intent"]),
        action_class=str(record["action_class"]),
        description_template=template,
        required_params=required,
        optional_params=optional,
        default_params=freeze(dict(defaults)),
        allowed_values=MappingProxyType({str(k): tuple(v) for k, v in allowed.items()}),
        requires_approval=approval,
    )
