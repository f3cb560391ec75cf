"""Helpers for the openwrt/ tests: paths, UCI files in `uci export` form, package Makefile parsing, and running an
init script under tests/harness/procd-harness.sh."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

OPENWRT = Path(__file__).resolve().parents[1]
ROOT = Path(os.environ.get("WISLICE_ROOT", OPENWRT.parent)).resolve()
FEED = OPENWRT / "feed"
HARNESS = OPENWRT / "tests" / "harness" / "procd-harness.sh"
PACKAGES = {name: FEED / "net" / name for name in ("wislice-ap-agent", "wislice-pofswitch")}
AP_AGENT_SRC = ROOT / "ap-agent" / "src"
AGENT_PROTO_SRC = ROOT / "agent-proto" / "src"
# What the wislice-ap-agent package ships, as a PYTHONPATH: the agent and its protocol package (wislice_agent_proto).
AP_AGENT_PATH = os.pathsep.join(str(p) for p in (AP_AGENT_SRC, AGENT_PROTO_SRC))

# OpenWrt's init scripts run under busybox ash; dash is the closest other POSIX shell. Both when installed.
SHELLS = [s for s in (["busybox", "sh"], ["dash"]) if shutil.which(s[0])]


def init_script(pkg: str) -> Path:
    return PACKAGES[pkg] / "files" / f"{pkg}.init"


def uci_config(pkg: str) -> Path:
    return PACKAGES[pkg] / "files" / f"{pkg}.config"


# --- UCI --------------------------------------------------------------------------------------------------------
@dataclass
class Section:
    type: str
    name: str
    options: dict[str, str | list[str]] = field(default_factory=dict)


def parse_uci(text: str) -> list[Section]:
    """A strict reader for UCI files as shipped in files/*.config: config/option/list lines, '#' comments."""
    sections: list[Section] = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        words = shlex.split(line, comments=True)
        if words[0] == "config" and len(words) in (2, 3):
            sections.append(Section(words[1], words[2] if len(words) == 3 else f"@{words[1]}[{len(sections)}]"))
        elif words[0] in ("option", "list") and len(words) == 3 and sections:
            opts = sections[-1].options
            if words[0] == "option":
                if words[1] in opts:
                    raise ValueError(f"line {n}: option {words[1]} given twice")
                opts[words[1]] = words[2]
            else:
                existing = opts.setdefault(words[1], [])
                if not isinstance(existing, list):
                    raise ValueError(f"line {n}: {words[1]} is both option and list")
                existing.append(words[2])
        else:
            raise ValueError(f"line {n}: not UCI: {line!r}")
    return sections


def commented_options(text: str) -> set[str]:
    """Options shown commented out (`#option name 'value'`) as documentation in a shipped config."""
    return set(re.findall(r"^\s*#\s*(?:option|list)\s+([A-Za-z0-9_]+)\s", text, re.M))


def uci_quote(value: str) -> str:
    """Quote a value the way `uci export` does: single quotes, a quote written as '\\''."""
    return "'" + value.replace("'", "'\\''") + "'"


def render_uci(sections: list[Section]) -> str:
    out = []
    for s in sections:
        out.append(f"config {s.type} {uci_quote(s.name)}")
        for key, value in s.options.items():
            for v in value if isinstance(value, list) else [value]:
                out.append(f"\t{'list' if isinstance(value, list) else 'option'} {key} {uci_quote(v)}")
        out.append("")
    return "\n".join(out)


# --- init scripts under the harness ------------------------------------------------------------------------------
@dataclass
class HarnessRun:
    rc: int
    stderr: str
    calls: list[list[str]]

    def instances(self) -> list[list[list[str]]]:
        """The procd calls between each procd_open_instance and procd_close_instance."""
        out: list[list[list[str]]] = []
        current: list[list[str]] | None = None
        for call in self.calls:
            if call[0] == "procd_open_instance":
                current = []
            elif call[0] == "procd_close_instance":
                assert current is not None, "procd_close_instance without procd_open_instance"
                out.append(current)
                current = None
            elif current is not None:
                current.append(call)
        assert current is None, "an instance was opened and never closed"
        return out

    def command(self) -> list[str]:
        """The command line of the single instance (procd_set_param command + procd_append_param command)."""
        (inst,) = self.instances()
        argv: list[str] = []
        for call in inst:
            if call[:2] == ["procd_set_param", "command"]:
                argv = call[2:]
            elif call[:2] == ["procd_append_param", "command"]:
                argv += call[2:]
        return argv

    def errors(self) -> str:
        return self.stderr + "".join(" ".join(c) + "\n" for c in self.calls if c[0] == "logger")


def run_harness(shell: list[str], init: Path, uci_text: str, action: str, tmp: Path,
                overrides: dict[str, str] | None = None, env: dict[str, str] | None = None) -> HarnessRun:
    tmp.mkdir(parents=True, exist_ok=True)
    uci = tmp / "uci"
    uci.write_text(uci_text)
    log = tmp / "procd.log"
    log.unlink(missing_ok=True)
    args = [f"{k}={v}" for k, v in (overrides or {}).items()]
    proc = subprocess.run([*shell, str(HARNESS), str(init), str(uci), action, *args], cwd=tmp,
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, **(env or {}), "HARNESS_LOG": str(log)})
    if proc.returncode >= 64:
        raise AssertionError(f"harness error {proc.returncode}: {proc.stderr}")
    raw = log.read_text() if log.exists() else ""
    calls = [rec.split("\x1f") for rec in raw.split("\x1e") if rec]
    return HarnessRun(proc.returncode, proc.stderr, calls)


def agent_wrapper(tmp: Path, pythonpath: str = AP_AGENT_PATH) -> Path:
    """A PROG for the ap-agent init script: the real agent from `pythonpath`, run by this Python."""
    path = tmp / "wislice-ap-agent"
    path.write_text(f"#!/bin/sh\nPYTHONPATH={shlex.quote(str(pythonpath))} exec {shlex.quote(sys.executable)} "
                    "-m wislice_ap_agent \"$@\"\n")
    path.chmod(0o755)
    return path


def check_config(ini: Path, pythonpath: str = AP_AGENT_PATH) -> subprocess.CompletedProcess[str]:
    """The real ap-agent config loader, as the README documents it: --check-config."""
    return subprocess.run([sys.executable, "-m", "wislice_ap_agent", "--config", str(ini), "--check-config"],
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(pythonpath)})


# --- package Makefiles ---------------------------------------------------------------------------------------------
def makefile_assignments(text: str) -> dict[str, str]:
    """Top-level `NAME:=value` / `NAME ?= value` assignments (continuation lines joined)."""
    joined = re.sub(r"\\\n\s*", " ", text)
    out = {}
    for m in re.finditer(r"^\s*([A-Z0-9_]+)\s*(?::=|\?=|\+=|=)\s*(.*)$", joined, re.M):
        out.setdefault(m.group(1), m.group(2).strip())
    return out


def makefile_define(text: str, name: str) -> str | None:
    m = re.search(rf"^define {re.escape(name)}\n(.*?)^endef", text, re.M | re.S)
    return m.group(1) if m else None
