"""Write the OpenAPI document the app generates (make openapi): python -m wislice_orchestrator.openapi_dump FILE."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from .app import create_app


def generate() -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        # No worker, no telemetry: the REST controllers are built but never called.
        app = create_app({"DATABASE_URL": f"sqlite:///{tmp}/dump.db", "START_WORKER": False, "TELEMETRY": False,
                          "CONTROLLERS": "rest"})
        doc = app.test_client().get("/api/v1/openapi.json").get_json()
        app.extensions["wislice_engine"].dispose()
        return doc


def render(doc: dict) -> str:
    return json.dumps(doc, indent=2, sort_keys=True) + "\n"


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "openapi.json")
    out.write_text(render(generate()))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
