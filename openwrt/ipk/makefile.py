"""Reading an OpenWrt package Makefile: its top-level assignments, its `define ... endef` blocks (with the line
each body line came from, for error messages) and the fields of its Package/<name> definitions. Only the subset of
GNU make the feed's Makefiles use is understood; anything else is an error, never a silent guess."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path


class MakefileError(Exception):
    """A package Makefile uses something this reader does not implement, or names something that is not there."""


@dataclass
class Line:
    number: int
    text: str


@dataclass
class Makefile:
    path: Path
    assignments: dict[str, str] = field(default_factory=dict)
    defines: dict[str, list[Line]] = field(default_factory=dict)
    evals: list[str] = field(default_factory=list)
    includes: list[str] = field(default_factory=list)

    @property
    def directory(self) -> Path:
        return self.path.parent

    def define(self, name: str) -> list[Line] | None:
        return self.defines.get(name)

    def packages(self) -> list[str]:
        """The packages in `$(eval $(call BuildPackage,NAME))`, in order."""
        return [m.group(1) for e in self.evals if (m := re.fullmatch(r"BuildPackage,([\w.+-]+)", e))]

    def is_py3package(self, name: str) -> bool:
        return f"Py3Package,{name}" in self.evals

    def includes_meson(self) -> bool:
        return "$(INCLUDE_DIR)/meson.mk" in self.includes


def _joined(lines: list[str]) -> list[Line]:
    """Physical lines with backslash continuations joined, each with the number of its first line."""
    out: list[Line] = []
    pending: Line | None = None
    for number, raw in enumerate(lines, 1):
        if pending is None:
            pending = Line(number, raw)
        else:
            pending.text += " " + raw.lstrip()
        if pending.text.endswith("\\"):
            pending.text = pending.text[:-1].rstrip()
            continue
        out.append(pending)
        pending = None
    if pending is not None:
        out.append(pending)
    return out


ASSIGN = re.compile(r"^([A-Za-z0-9_/.-]+)\s*(:=|\?=|\+=|=)\s*(.*)$")


def parse(path: Path) -> Makefile:
    """Read a package Makefile. Conditionals: `ifdef`/`ifndef` of a variable the Makefile does not assign (for
    the feed, USE_SOURCE_DIR: a developer's option) are taken as that variable unset."""
    mk = Makefile(path)
    lines = _joined(path.read_text().splitlines())
    skipping: list[bool] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        text = line.text.rstrip()
        i += 1
        stripped = text.strip()
        if m := re.fullmatch(r"(ifdef|ifndef)\s+(\w+)", stripped):
            if m.group(2) in mk.assignments:
                raise MakefileError(f"{path}:{line.number}: conditional on an assigned variable: {stripped}")
            skipping.append(m.group(1) == "ifdef")
            continue
        if stripped == "endif":
            if not skipping:
                raise MakefileError(f"{path}:{line.number}: endif without ifdef/ifndef")
            skipping.pop()
            continue
        if stripped.startswith(("ifeq", "ifneq", "else")):
            raise MakefileError(f"{path}:{line.number}: conditional not implemented: {stripped}")
        if m := re.fullmatch(r"define\s+(\S+)", stripped):
            body: list[Line] = []
            while i < len(lines) and lines[i].text.strip() != "endef":
                body.append(lines[i])
                i += 1
            if i == len(lines):
                raise MakefileError(f"{path}:{line.number}: define {m.group(1)} without endef")
            i += 1
            if not any(skipping):
                mk.defines[m.group(1)] = body
            continue
        if any(skipping) or not stripped or stripped.startswith("#"):
            continue
        if m := re.fullmatch(r"include\s+(\S+)", stripped):
            mk.includes.append(m.group(1))
        elif m := re.fullmatch(r"\$\(eval \$\(call (.+)\)\)", stripped):
            mk.evals.append(m.group(1))
        elif m := ASSIGN.match(stripped):
            name, op, value = m.groups()
            if op == "+=":
                mk.assignments[name] = (mk.assignments.get(name, "") + " " + value).strip()
            elif op != "?=" or name not in mk.assignments:
                mk.assignments[name] = value.strip()
        else:
            raise MakefileError(f"{path}:{line.number}: not understood: {stripped}")
    if skipping:
        raise MakefileError(f"{path}: ifdef/ifndef without endif")
    return mk


def fields(body: list[Line] | None) -> dict[str, str]:
    """`KEY:=value` / `KEY+=value` lines of a Package/<name> definition."""
    out: dict[str, str] = {}
    for line in body or []:
        m = ASSIGN.match(line.text.strip())
        if not m:
            if line.text.strip():
                raise MakefileError(f"line {line.number}: not a package field: {line.text.strip()}")
            continue
        name, op, value = m.groups()
        out[name] = (out.get(name, "") + " " + value).strip() if op == "+=" else value.strip()
    return out


def text(body: list[Line] | None) -> str:
    """A define used as text (a description), lines stripped, blank lines kept."""
    return "\n".join(line.text.strip() for line in body or []).strip("\n")


VAR = re.compile(r"\$\(([A-Za-z0-9_]+)\)")


def expand(value: str, variables: dict[str, str], where: str, depth: int = 0) -> str:
    """Expand $(NAME) references (recursively) and $$; any other make function or an unknown variable is an
    error naming `where`."""
    if depth > 20:
        raise MakefileError(f"{where}: variables nest too deeply in {value!r}")

    def one(m: re.Match[str]) -> str:
        name = m.group(1)
        if name not in variables:
            raise MakefileError(f"{where}: unknown variable $({name})")
        return expand(variables[name], variables, where, depth + 1)

    out = VAR.sub(one, value.replace("$$", "\0"))
    if "$(" in out or "${" in out:
        raise MakefileError(f"{where}: make function or variable not implemented: {out.strip()}")
    return out.replace("\0", "$")
