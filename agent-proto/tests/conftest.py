"""Paths of the contracts the package implements, and the reference JSON Schema implementation to compare with."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

SPEC = Path(__file__).resolve().parents[2] / "spec"
AGENT_VECTORS = SPEC / "agent" / "vectors"
VALID = sorted((AGENT_VECTORS / "valid").glob("*.json"))
INVALID = sorted((AGENT_VECTORS / "invalid").glob("*.json"))
MGMT_VECTORS = sorted((SPEC / "switch-mgmt" / "vectors").glob("*.json"))
SCHEMA = json.loads((SPEC / "agent" / "schema" / "message.schema.json").read_text())
# jsonschema (spec/deps/requirements.txt) is the reference the stdlib validator is checked against
REFERENCE = jsonschema.Draft202012Validator(SCHEMA, format_checker=jsonschema.FormatChecker())


def load(path: Path) -> dict:
    return json.loads(path.read_text())
