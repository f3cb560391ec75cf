"""The ap-agent package declares every split-out part of OpenWrt's Python stdlib that the agent really imports
(checked on the interpreter, so modules imported by other stdlib modules count too), and nothing outside the
stdlib."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

from owrt import AP_AGENT_PATH, PACKAGES, makefile_assignments, makefile_define

# OpenWrt packages feed, lang/python/python3/files/python3-package-*.mk: top-level module -> package. Anything not
# listed ships in python3-light (or python3-base).
SPLIT = {
    "asyncio": "python3-asyncio", "cgi": "python3-cgi", "cgitb": "python3-cgitb", "unicodedata": "python3-codecs",
    "ctypes": "python3-ctypes", "_ctypes": "python3-ctypes", "dbm": "python3-dbm", "decimal": "python3-decimal",
    "_decimal": "python3-decimal", "distutils": "python3-distutils", "email": "python3-email",
    "logging": "python3-logging", "lzma": "python3-lzma", "_lzma": "python3-lzma",
    "multiprocessing": "python3-multiprocessing", "curses": "python3-ncurses", "_curses": "python3-ncurses",
    "_ssl": "python3-openssl", "_hashlib": "python3-openssl", "pydoc": "python3-pydoc", "doctest": "python3-pydoc",
    "readline": "python3-readline", "sqlite3": "python3-sqlite3", "_sqlite3": "python3-sqlite3",
    "unittest": "python3-unittest", "urllib": "python3-urllib", "xml": "python3-xml", "xmlrpc": "python3-xml",
    "pyexpat": "python3-xml", "uuid": "python3-uuid", "_uuid": "python3-uuid",
}
# Imported only inside `try: ... except ImportError` by the stdlib itself (shutil probes bz2/lzma for archives).
OPTIONAL = {"lzma", "_lzma"}
# python3-urllib itself depends on python3-email, so email pulled in by urllib is covered.
IMPLIED = {"python3-urllib": {"python3-email"}}

PACKAGED = ("wislice_ap_agent", "wislice_agent_proto")  # the package ships both
PROBE = f"""
import importlib, json, pkgutil, sys
for name in {PACKAGED!r}:
    for m in pkgutil.iter_modules(importlib.import_module(name).__path__):
        importlib.import_module(name + "." + m.name)
print(json.dumps(sorted({{n.split(".")[0] for n in sys.modules}})))
"""


def test_declared_python_depends_cover_the_imports():
    mods = set(json.loads(subprocess.run(
        [sys.executable, "-S", "-c", PROBE], capture_output=True, text=True, timeout=60, check=True,
        env={**os.environ, "PYTHONPATH": AP_AGENT_PATH, "PYTHONNOUSERSITE": "1"}).stdout))
    package = makefile_define((PACKAGES["wislice-ap-agent"] / "Makefile").read_text(), "Package/wislice-ap-agent")
    depends = set(re.findall(r"\+([\w.-]+)", makefile_assignments(package)["DEPENDS"]))
    assert "python3-light" in depends
    covered = depends | {d for p in depends for d in IMPLIED.get(p, set())}
    needed = {SPLIT[m] for m in mods - OPTIONAL if m in SPLIT}
    assert needed <= covered, f"imported but not declared: {sorted(needed - covered)}"
    # the agent's own modules aside, everything it imports is stdlib (pyroute2 is optional and imported lazily)
    foreign = {m for m in mods if m not in sys.stdlib_module_names and m not in (*PACKAGED, "__main__")}
    assert not foreign, f"non-stdlib imports would need OpenWrt packages too: {sorted(foreign)}"
    # and nothing declared is unused
    python_depends = {d for d in depends if d.startswith("python3-") and d != "python3-light"}
    assert python_depends <= needed, f"declared but not imported: {sorted(python_depends - needed)}"
