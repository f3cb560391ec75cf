"""Shared test setup: tests/support (the fake hostapd, the in-test controller) is importable as `support`."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
