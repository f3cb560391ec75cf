"""The stdlib validator against jsonschema, the reference implementation: the same verdict on every valid vector with
a field taken away, one added, or a value replaced, at every level; its deliberate strictness; and a schema with a
keyword it does not implement is refused when loaded."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import REFERENCE, SCHEMA, VALID, load

from wislice_agent_proto import validate as V
from wislice_agent_proto.schema import Schema, SchemaError, ecma_regex

REPLACEMENTS: list[Any] = ["", "x\n", "A" * 70, -1, 0, 2**53, 1.5, True, None, [], {}]


def mutations(msg: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[str, Any]]:
    """(where, a copy of the message changed there) for each field dropped or added and each value replaced."""
    node = msg
    for p in path:
        node = node[p]
    if isinstance(node, dict):
        for key in node:
            yield f"{path} -{key}", _changed(msg, path, lambda n, k=key: n.pop(k))
            yield from mutations(msg, (*path, key))
        yield f"{path} +zz", _changed(msg, path, lambda n: n.__setitem__("zz", 1))
    elif isinstance(node, list):
        for i in range(min(len(node), 2)):
            yield from mutations(msg, (*path, i))
    if path:
        for value in REPLACEMENTS:
            if type(value) is not type(node):
                yield f"{path}={value!r}", _changed(msg, path[:-1], lambda n, v=value: n.__setitem__(path[-1], v))


def _changed(msg: Any, path: tuple[Any, ...], change: Any) -> Any:
    out = copy.deepcopy(msg)
    node = out
    for p in path:
        node = node[p]
    change(node)
    return out


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.stem)
def test_same_verdict_as_jsonschema_on_mutated_vectors(path):
    disagreements = []
    count = 0
    for where, msg in mutations(load(path)):
        count += 1
        ours, reference = V.SCHEMA.is_valid(msg), REFERENCE.is_valid(msg)
        if ours != reference:
            disagreements.append(f"{where}: ours {ours}, jsonschema {reference}")
    assert count > 10 and not disagreements, disagreements[:5]


def test_errors_name_the_field():
    msg = load(VALID[0])
    assert msg["type"] == "bye"
    with pytest.raises(V.ValidationError, match=r"^reason: must be a string$"):
        V.message({**msg, "reason": 5})
    stats = next(load(p) for p in VALID if p.stem == "event-stats-clients")
    stats["data"]["clients"][1]["mac"] = "nope"
    with pytest.raises(V.ValidationError, match=r"^data\.clients\[1\]\.mac: 'nope' is not allowed here"):
        V.message(stats)
    with pytest.raises(V.ValidationError, match=r"^type: must be one of challenge, hello"):
        V.message({"type": "shell"})


@pytest.mark.parametrize("value", [1.0, True, float("nan"), float("inf")])
def test_stricter_than_the_draft_on_numbers(value):
    """An integer is written without a fraction (jsonschema accepts 1.0); JSON has no NaN or Infinity."""
    ping = {"type": "ping", "id": value}
    assert not V.SCHEMA.is_valid(ping)
    welcome = {"type": "welcome", "controller_id": "c", "stats_interval_s": value}
    assert V.SCHEMA.is_valid(welcome) == (value is not True and value == value and value != float("inf"))


def test_ssid_bytes_refine_the_schema():
    vap = load(next(p for p in VALID if p.stem == "req-createVap-open"))
    vap["params"]["vap"]["ssid"] = "€" * 11  # 11 characters, 33 bytes
    assert REFERENCE.is_valid(vap) and not V.SCHEMA.is_valid(vap)


def test_ecma_dollar_is_the_very_end():
    assert ecma_regex("^[a-z]+$").search("abc") and not ecma_regex("^[a-z]+$").search("abc\n")
    assert ecma_regex("^[$]x$").search("$x") and ecma_regex(r"^a\$$").search("a$")
    assert not ecma_regex(r"^\d$").search("\u0663")  # ASCII digits only, as in ECMA-262


@pytest.mark.parametrize("schema, why", [
    ({"minItems": 1}, "does not implement: minItems"),
    ({"properties": {"a": {"patternProperties": {}}}}, "does not implement: patternProperties"),
    ({"$ref": "#/$defs/nope"}, "points at nothing"),
    ({"$ref": "other.json#/x"}, "within the document"),
    ({"format": "email"}, "format 'email'"),
    ({"type": "int"}, "unknown type"),
    ({"then": {}}, "then/else without if"),
])
def test_unimplemented_schemas_are_refused_at_load(schema, why):
    with pytest.raises(SchemaError, match=why):
        Schema(schema)


def test_the_agent_schema_loads_and_every_method_has_params_rules():
    assert Schema(SCHEMA).is_valid(load(VALID[0]))
    rules = [r["if"]["properties"]["method"]["const"] for r in V._message_type("request")["allOf"]]
    assert sorted(rules) == sorted(V.METHODS)
