"""Counts of hostile inputs that the abuse tests send, for the reliability bench (pof-switch `make bench`).

A test calls ``record(n)`` once it has sent n hostile messages or connections and its checks passed. Nothing is
written unless ABUSE_TALLY names a file (the bench sets it); each call appends one JSON line
``{"test": ..., "inputs": n}``. pof-switch/bench/bench_abuse.py sums them; the tests that failed are its
server_errors.
"""

from __future__ import annotations

import json
import os


def record(inputs: int) -> None:
    path = os.environ.get("ABUSE_TALLY")
    if not path:
        return
    test = os.environ.get("PYTEST_CURRENT_TEST", "?").split(" ")[0]
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps({"test": test, "inputs": inputs}) + "\n")
