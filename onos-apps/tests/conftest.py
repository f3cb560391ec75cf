"""The onos-apps tests import their helpers (onos_helpers, fake_agent) from this directory."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
