"""A pytest session removes the testbed log directories it saw appear, but not one a live other process owns."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from wislice_testbed.pytest_plugin import OWNER_FILE, in_use_by_another


def test_only_a_live_other_owner_keeps_its_log_dir(tmp_path: Path) -> None:
    assert not in_use_by_another(tmp_path)  # no owner file: an old directory, ours to remove
    (tmp_path / OWNER_FILE).write_text(f"{os.getpid()}\n")
    assert not in_use_by_another(tmp_path)  # our own testbed's
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        (tmp_path / OWNER_FILE).write_text(f"{other.pid}\n")
        assert in_use_by_another(tmp_path)  # a concurrent session's live testbed
    finally:
        other.kill()
        other.wait()
    assert not in_use_by_another(tmp_path)  # its owner is gone: left behind, removable
    (tmp_path / OWNER_FILE).write_text("garbage")
    assert not in_use_by_another(tmp_path)
