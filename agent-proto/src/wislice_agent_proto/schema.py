"""A validator for the subset of JSON Schema (draft 2020-12) that spec/agent/schema/message.schema.json uses, in
stdlib Python, so the agents need no pip package (OpenWrt's python3 has none).

The subset is explicit: loading a schema that uses any other keyword raises SchemaError, so a schema change that
needs a new keyword fails the tests instead of passing silently. Deliberately stricter than the draft:
- an "integer" is a JSON number written without fraction or exponent (a Python int): 1.0 is not one;
- a "number" is finite (json.loads accepts NaN and Infinity, JSON has neither);
- a "pattern" is the ECMA-262 regex run by Python's re with `$` meaning the very end (Python's `$` also matches
  before a final newline) and ASCII-only \\d and \\w, as in ECMA-262.
The first violation found is reported, with the path of the offending value: params.vap.ssid, data.clients[3].mac.
"""

from __future__ import annotations

import ipaddress
import json
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

ANNOTATIONS = frozenset({"$schema", "$id", "title", "description"})
# The order in which a schema object's keywords are checked: the shape of an object (missing and unknown fields)
# before its fields, a value's type before its range.
ORDER = ("$ref", "type", "const", "enum", "required", "dependentRequired", "additionalProperties", "properties",
         "propertyNames", "maxProperties", "items", "maxItems", "minLength", "maxLength", "pattern", "format",
         "minimum", "exclusiveMinimum", "maximum", "allOf", "anyOf", "oneOf", "if", "not")
KEYWORDS = frozenset(ORDER) | {"$defs", "then", "else"}


class SchemaError(Exception):
    """The schema uses something this validator does not implement, or is malformed."""


class ValidationError(ValueError):
    """A value breaks the schema; ``path`` names it (empty for the whole message)."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path
        self.reason = message


Refinement = Callable[[Any, str], None]


def is_integer(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def is_number(v: Any) -> bool:
    return is_integer(v) or (isinstance(v, float) and math.isfinite(v))


TYPES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "object": (lambda v: isinstance(v, dict), "an object"),
    "array": (lambda v: isinstance(v, list), "an array"),
    "string": (lambda v: isinstance(v, str), "a string"),
    "boolean": (lambda v: isinstance(v, bool), "true or false"),
    "integer": (is_integer, "an integer"),
    "number": (is_number, "a number"),
    "null": (lambda v: v is None, "null"),
}


def _ipv4(v: str) -> bool:
    try:
        ipaddress.IPv4Address(v)
    except ValueError:
        return False
    return True


FORMATS: dict[str, tuple[Callable[[str], bool], str]] = {"ipv4": (_ipv4, "an IPv4 address")}


def same(a: Any, b: Any) -> bool:
    """JSON equality: true and 1 differ, 1 and 1.0 do not."""
    if type(a) is str:
        return type(b) is str and a == b
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if is_number(a) and is_number(b):
        return a == b
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return bool(a == b)


def ecma_regex(pattern: str) -> re.Pattern[str]:
    """An ECMA-262 pattern (as JSON Schema has them) compiled for Python: `$` outside a class becomes `\\Z`."""
    out, i, in_class = [], 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "$":
            c = r"\Z"
        out.append(c)
        i += 1
    return re.compile("".join(out), re.ASCII)


def child(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _show(v: Any) -> str:
    return repr(v[:80]) if isinstance(v, str) else json.dumps(v, ensure_ascii=False)[:80]


def _words(values: list[Any]) -> str:
    return ", ".join(str(x) for x in values)


def _either(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def _relative(e: ValidationError, path: str) -> str:
    return e.reason if e.path == path else str(e)


class Schema:
    """One loaded schema document. ``refinements`` maps a reference ("#/$defs/ssid") to a check run after a value
    passed that part of the schema: the rules the schema leaves to implementations."""

    def __init__(self, doc: Mapping[str, Any], refinements: Mapping[str, Refinement] | None = None) -> None:
        self.doc = doc
        self.refinements = dict(refinements or {})
        self._resolved: dict[str, Any] = {}
        self._regex: dict[str, re.Pattern[str]] = {}
        self._plans: dict[int, tuple[Callable[[Any, dict[str, Any], str], ValidationError | None], ...]] = {}
        self._tags: dict[int, list[dict[str, Any]]] = {}  # per oneOf list: each alternative's tag fields
        self._const_ifs: dict[int, tuple[tuple[str, Any], ...]] = {}
        self._audit(doc, "#")
        for ref in self.refinements:
            self.resolve(ref)

    # ---- the document -------------------------------------------------------------------------------------
    def resolve(self, ref: str) -> Any:
        """The part of the document a local reference ("#", "#/$defs/x", "#/oneOf/2") points at."""
        if ref in self._resolved:
            return self._resolved[ref]
        if not ref.startswith("#"):
            raise SchemaError(f"only references within the document are supported: {ref}")
        node: Any = self.doc
        for raw in ref[2:].split("/") if len(ref) > 1 else []:
            part = raw.replace("~1", "/").replace("~0", "~")
            try:
                node = node[int(part)] if isinstance(node, list) else node[part]
            except (KeyError, IndexError, ValueError, TypeError):
                raise SchemaError(f"reference {ref} points at nothing") from None
        self._resolved[ref] = node
        return node

    def regex(self, ref: str) -> re.Pattern[str]:
        """The compiled "pattern" of the schema at ref."""
        return self._regex[self.resolve(ref)["pattern"]]

    def _audit(self, s: Any, where: str) -> None:
        if not isinstance(s, dict):
            raise SchemaError(f"{where}: a schema must be an object here")
        unknown = set(s) - KEYWORDS - ANNOTATIONS
        if unknown:
            raise SchemaError(f"{where}: keywords this validator does not implement: {', '.join(sorted(unknown))}")
        for key in ("$defs", "properties"):
            for name, sub in s.get(key, {}).items():
                self._audit(sub, f"{where}/{key}/{name}")
        for key in ("items", "propertyNames", "not", "if", "then", "else"):
            if key in s:
                self._audit(s[key], f"{where}/{key}")
        for key in ("allOf", "anyOf", "oneOf"):
            for i, sub in enumerate(s.get(key, [])):
                self._audit(sub, f"{where}/{key}/{i}")
        extra = s.get("additionalProperties", True)
        if not isinstance(extra, bool):
            self._audit(extra, f"{where}/additionalProperties")
        if ("then" in s or "else" in s) and "if" not in s:
            raise SchemaError(f"{where}: then/else without if")
        if "$ref" in s:
            self.resolve(s["$ref"])
        types = s.get("type", [])
        for name in types if isinstance(types, list) else [types]:
            if name not in TYPES:
                raise SchemaError(f"{where}: unknown type {name!r}")
        if "pattern" in s:
            self._regex[s["pattern"]] = ecma_regex(s["pattern"])
        if "format" in s and s["format"] not in FORMATS:
            raise SchemaError(f"{where}: format {s['format']!r} is not implemented")
        # what checking a value against this schema object runs, in ORDER (keyed by the object: the document is
        # never changed after loading)
        self._plans[id(s)] = tuple(getattr(self, "_k_" + key.lstrip("$")) for key in ORDER if key in s)
        if "oneOf" in s:
            self._tags[id(s["oneOf"])] = [
                {k: p for k, p in sub.get("properties", {}).items()
                 if k in sub.get("required", ()) and ("const" in p or "enum" in p)} for sub in s["oneOf"]]
        cond = s.get("if", {})
        if set(cond) == {"properties"} and all(set(p) == {"const"} for p in cond["properties"].values()):
            self._const_ifs[id(cond)] = tuple((k, p["const"]) for k, p in cond["properties"].items())

    # ---- validation ---------------------------------------------------------------------------------------
    def check(self, value: Any, ref: str = "#", path: str = "") -> Any:
        """Returns value if it satisfies the schema at ref; else raises the first ValidationError found."""
        error = self._ref(value, ref, path)
        if error is not None:
            raise error
        return value

    def is_valid(self, value: Any, ref: str = "#") -> bool:
        return self._ref(value, ref, "") is None

    def _ref(self, v: Any, ref: str, path: str) -> ValidationError | None:
        error = self._error(v, self.resolve(ref), path)
        refine = self.refinements.get(ref)
        if error is None and refine is not None:
            try:
                refine(v, path)
            except ValidationError as e:
                return e
        return error

    def _error(self, v: Any, s: Any, path: str) -> ValidationError | None:
        if isinstance(s, bool):
            return None if s else ValidationError(path, "is not allowed here")
        for check in self._plans[id(s)]:
            error = check(v, s, path)
            if error is not None:
                return error
        return None

    def _k_ref(self, v: Any, s: dict[str, Any], path: str) -> ValidationError | None:
        return self._ref(v, s["$ref"], path)

    def _k_type(self, v: Any, s: dict[str, Any], path: str) -> ValidationError | None:
        names = s["type"] if isinstance(s["type"], list) else [s["type"]]
        if any(TYPES[n][0](v) for n in names):
            return None
        return ValidationError(path, "must be " + _either([TYPES[n][1] for n in names]))

    def _k_const(self, v: Any, s: dict[str, Any], path: str) -> ValidationError | None:
        return None if same(v, s["const"]) else ValidationError(path, f"must be {_show(s['const'])}")

    def _k_enum(self, v: Any, s: dict[str, Any], path: str) -> ValidationError | None:
        if any(same(v, x) for x in s["enum"]):
            return None
        return ValidationError(path, f"must be one of {_words(s['enum'])}")

    def _k_required(self, v: Any, s: dict[str, Any], path: str) -> ValidationError | None:
        missing = [k for k in s["required"] if isinstance(v, dict) and k not in v]
        return ValidationError(path, f"missing field {missing[0]!r}") if missing else None

    def _k_dependentRequired(self, v: Any, s: dict[str, Any], path: str) -> ValidationError | None:
        for key, needs in s["dependentRequired"].items():
            for other in needs:
                if isinstance(v, dict) and key in v and other not in v:
                    return ValidationError(path, f"{key} needs {other} (they come together)")
        return None

    def _k_additionalProperties(self, v: Any, s: dict[str, Any], path: str) -> ValidationError | None:
        extra, known = s["additionalProperties"], s.get("properties", {})
        for key in v if isinstance(v, dict) and extra is not True else ():
            if key in known:
                continue
            if extra is False:
                return ValidationError(path, f"unknown field {str(key)[:64]!r}")
            error = self._error(v[key], extra, child(path, key))
            if error is not None:
                return error
        return None

    def _k_properties(self, v: Any, s: dict[str, Any], path: str) -> ValidationError | None:
        for key, sub in s["properties"].items() if isinstance(v, dict) else ():
            if key in v:
                error = self._error(v[key], sub, child(path, key))
                if error is not None:
                    return error
        return None

    def _k_propertyNames(self, v: Any, s: dict[str, Any], path: str) -> ValidationError | None:
        for key in v if isinstance(v, dict) else ():
            error = self._error(key, s["propertyNames"], path)
            if error is not None:
                return ValidationError(path, f"field name {error.reason}")
        return None

    def _k_maxProperties(self, v: Any, s: dict[str, Any], path: str) -> ValidationError | None:
        n = s["maxProperties"]
        return ValidationError(path, f"more than {n} fields") if isinstance(v, dict) and len(v) > n else None

    def _k_items(self, v: Any, s: dict[str, Any], path: str) -> ValidationError | None:
        for i, item in enumerate(v) if isinstance(v, list) else ():
            error = self._error(item, s["items"], f"{path}[{i}]")
            if error is not None:
                return error
        return None

    def _k_maxItems(self, v: Any, s: dict[str, Any], path: str) -> ValidationError | None:
        n = s["maxItems"]
        return ValidationError(path, f"more than {n} items") if isinstance(v, list) and len(v) > n else None

    def _k_minLength(self, v: Any, s: dict[str, Any], path: str) -> ValidationError | None:
        n = s["minLength"]
        if not isinstance(v, str) or len(v) >= n:
            return None
        return ValidationError(path, "must not be empty" if n == 1 else f"shorter than {n} characters")

    def _k_maxLength(self, v: Any, s: dict[str, Any], path: str) -> ValidationError | None:
        n = s["maxLength"]
        return ValidationError(path, f"longer than {n} characters") if isinstance(v, str) and len(v) > n else None

    def _k_pattern(self, v: Any, s: dict[str, Any], path: str) -> ValidationError | None:
        if not isinstance(v, str) or self._regex[s["pattern"]].search(v):
            return None
        return ValidationError(path, f"{_show(v)} is not allowed here (pattern {s['pattern']})")

    def _k_format(self, v: Any, s: dict[str, Any], path: str) -> ValidationError | None:
        test, what = FORMATS[s["format"]]
        return None if not isinstance(v, str) or test(v) else ValidationError(path, f"{_show(v)} is not {what}")

    def _k_minimum(self, v: Any, s: dict[str, Any], path: str) -> ValidationError | None:
        low = s["minimum"]
        return ValidationError(path, f"must be at least {low}") if is_number(v) and v < low else None

    def _k_exclusiveMinimum(self, v: Any, s: dict[str, Any], path: str) -> ValidationError | None:
        low = s["exclusiveMinimum"]
        return ValidationError(path, f"must be more than {low}") if is_number(v) and v <= low else None

    def _k_maximum(self, v: Any, s: dict[str, Any], path: str) -> ValidationError | None:
        high = s["maximum"]
        return ValidationError(path, f"must be at most {high}") if is_number(v) and v > high else None

    def _k_allOf(self, v: Any, s: dict[str, Any], path: str) -> ValidationError | None:
        for sub in s["allOf"]:
            error = self._error(v, sub, path)
            if error is not None:
                return error
        return None

    def _k_anyOf(self, v: Any, s: dict[str, Any], path: str) -> ValidationError | None:
        errors = []
        for sub in s["anyOf"]:
            error = self._error(v, sub, path)
            if error is None:
                return None
            errors.append(error)
        return ValidationError(path, " or ".join(_relative(e, path) for e in errors))

    def _k_oneOf(self, v: Any, s: dict[str, Any], path: str) -> ValidationError | None:
        subs = s["oneOf"]
        chosen = self._tagged(v, subs)
        if chosen is not None and len(chosen) == 1:
            return self._error(v, subs[chosen[0]], path)  # the others require tags this value does not have
        errors = [self._error(v, sub, path) for sub in subs]
        matched = errors.count(None)
        if matched == 1:
            return None
        if matched > 1:
            return ValidationError(path, f"matches {matched} alternatives where exactly one may")
        return self._why_none(v, subs, errors, path)

    def _tagged(self, v: Any, subs: list[Any]) -> list[int] | None:
        """The alternatives whose tags (the required const/enum fields every alternative has, like a message's
        type) the value has; None when the alternatives have no such common tags."""
        tags = self._tags[id(subs)]
        common = sorted(set.intersection(*(set(t) for t in tags))) if tags else []
        if not common or not isinstance(v, dict):
            return None
        return [i for i, t in enumerate(tags) if all(k in v and self._error(v[k], t[k], "") is None for k in common)]

    def _why_none(self, v: Any, subs: list[Any], errors: list[Any], path: str) -> ValidationError:
        """No alternative matched: the chosen alternative's error, or what the common tags must be, or else the
        alternatives' errors."""
        chosen = self._tagged(v, subs)
        if chosen is not None and len(chosen) == 1:
            return errors[chosen[0]]
        tags = self._tags[id(subs)]
        for key in sorted(set.intersection(*(set(t) for t in tags))) if chosen is not None else ():
            allowed = [x for t in tags for x in ([t[key]["const"]] if "const" in t[key] else t[key]["enum"])]
            if key not in v:
                return ValidationError(path, f"missing field {key!r}")
            if not any(same(v[key], x) for x in allowed):
                return ValidationError(child(path, key), f"must be one of {_words(allowed)}")
        if len({str(e) for e in errors}) == 1:
            return errors[0]
        return ValidationError(path, "matches none of the alternatives: " + "; ".join(
            _relative(e, path) for e in errors[:4]))

    def _k_if(self, v: Any, s: dict[str, Any], path: str) -> ValidationError | None:
        consts = self._const_ifs.get(id(s["if"]))
        if consts is not None:  # the common case, without building errors: {"properties": {k: {"const": c}}}
            holds = not isinstance(v, dict) or all(k not in v or same(v[k], c) for k, c in consts)
        else:
            holds = self._error(v, s["if"], path) is None
        branch = s.get("then") if holds else s.get("else")
        return None if branch is None else self._error(v, branch, path)

    def _k_not(self, v: Any, s: dict[str, Any], path: str) -> ValidationError | None:
        if self._error(v, s["not"], path) is not None:
            return None
        fields = s["not"].get("required") if len(s["not"]) == 1 else None
        if fields:
            return ValidationError(path, f"must not have {', '.join(repr(f) for f in fields)}")
        return ValidationError(path, "is not allowed here")
