"""The agent-protocol schema accepts every valid vector and rejects every invalid one."""

import json
from pathlib import Path

import jsonschema
import pytest

AGENT = Path(__file__).resolve().parents[1] / "agent"
SCHEMA = json.loads((AGENT / "schema" / "message.schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA, format_checker=jsonschema.FormatChecker())
VALID = sorted((AGENT / "vectors" / "valid").glob("*.json"))
INVALID = sorted((AGENT / "vectors" / "invalid").glob("*.json"))


def test_schema_is_well_formed() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_there_are_vectors() -> None:
    assert len(VALID) >= 10 and len(INVALID) >= 10


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.stem)
def test_valid_vector_accepted(path: Path) -> None:
    message = json.loads(path.read_text())
    errors = [e.message for e in VALIDATOR.iter_errors(message)]
    assert errors == []


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.stem)
def test_invalid_vector_rejected(path: Path) -> None:
    vector = json.loads(path.read_text())
    assert vector["why"], "an invalid vector says why it is invalid"
    assert not VALIDATOR.is_valid(vector["message"]), vector["why"]


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.stem)
def test_valid_vector_is_one_line_on_the_wire(path: Path) -> None:
    line = json.dumps(json.loads(path.read_text()), ensure_ascii=False, separators=(",", ":"))
    assert "\n" not in line and len(line.encode()) < 1 << 20
