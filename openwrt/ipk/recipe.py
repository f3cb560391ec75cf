"""Carrying out a package Makefile's recipe (a `define` of shell lines) the way make would, for the commands the
feed's recipes use: $(INSTALL_DIR), $(INSTALL_BIN), $(INSTALL_CONF), $(INSTALL_DATA), $(CP), `echo "TEXT" > FILE`
(a one-line file, 0644) and `[ test ] || { echo message; false; }` checks (run by /bin/sh, so a failing check
stops with the Makefile's own message). Modes are set explicitly (copies: 0755 when executable, else 0644), so
the result does not depend on the umask or on the modes of the checkout; every write must land inside the build's
own directories."""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
from pathlib import Path

from .makefile import Line, Makefile, MakefileError, expand

# OpenWrt's rules.mk: INSTALL_DIR is install -d -m0755, INSTALL_BIN -m0755, INSTALL_DATA -m0644, INSTALL_CONF -m0600.
INSTALL_MODES = {"$(INSTALL_BIN)": 0o755, "$(INSTALL_CONF)": 0o600, "$(INSTALL_DATA)": 0o644}
# `echo "TEXT" > FILE`: a file of one line, e.g. the package's version (TEXT without quotes, $ only in variables).
ECHO_TO_FILE = re.compile(r'echo "([^"`\\]*)" > (\S+)')


class RecipeError(Exception):
    """A recipe line failed: a file it names is missing, a check failed, or it writes outside the build."""


def normal_mode(path: Path) -> int:
    """A copied file's mode as git would record it: executable or not."""
    return 0o755 if path.stat().st_mode & 0o111 else 0o644


class Recipe:
    """Runs recipe lines of one Makefile with a fixed set of variables; writes only under `writable`."""

    def __init__(self, mk: Makefile, variables: dict[str, str], writable: list[Path]) -> None:
        self.mk = mk
        self.variables = variables
        self.writable = [p.resolve() for p in writable]

    def run(self, define: str, args: dict[str, str] | None = None) -> None:
        body = self.mk.define(define)
        if body is None:
            raise RecipeError(f"{self.mk.path}: no define {define}")
        for line in body:
            self.line(line, args or {})

    def where(self, line: Line) -> str:
        return f"{self.mk.path}:{line.number}"

    def path(self, raw: str, line: Line, args: dict[str, str]) -> Path:
        value = expand(raw, {**self.variables, **args}, self.where(line))
        p = Path(value)
        return p if p.is_absolute() else self.mk.directory / p

    def dest(self, p: Path, line: Line) -> Path:
        resolved = p.resolve()
        if not any(resolved == w or w in resolved.parents for w in self.writable):
            raise RecipeError(f"{self.where(line)}: writes outside the package build: {p}")
        return resolved

    def sources(self, raw: str, line: Line, args: dict[str, str]) -> list[Path]:
        p = self.path(raw, line, args)
        if glob.has_magic(str(p)):
            found = sorted(Path(x) for x in glob.glob(str(p)))
            if not found:
                raise RecipeError(f"{self.where(line)}: {raw} matches no file ({p})")
            return found
        if not p.exists():
            raise RecipeError(f"{self.where(line)}: {raw}: no such file: {p}")
        return [p]

    def line(self, line: Line, args: dict[str, str]) -> None:
        text = line.text.strip()
        if not text or text.startswith("#"):
            return
        words = text.split()
        command, rest = words[0], words[1:]
        if command == "$(INSTALL_DIR)":
            for raw in rest:
                d = self.dest(self.path(raw, line, args), line)
                d.mkdir(parents=True, exist_ok=True)
                d.chmod(0o755)
        elif command in INSTALL_MODES:
            self.install(rest, INSTALL_MODES[command], line, args)
        elif command == "$(CP)":
            self.copy(rest, line, args)
        elif m := ECHO_TO_FILE.fullmatch(text):
            self.echo(m.group(1), m.group(2), line, args)
        elif text.lstrip("@").startswith("["):
            self.check(text.lstrip("@"), line, args)
        else:
            raise RecipeError(f"{self.where(line)}: recipe command not implemented here: {text}")

    def install(self, rest: list[str], mode: int, line: Line, args: dict[str, str]) -> None:
        if len(rest) < 2:
            raise RecipeError(f"{self.where(line)}: install needs a source and a destination")
        sources = [s for raw in rest[:-1] for s in self.sources(raw, line, args)]
        target = self.dest(self.path(rest[-1], line, args), line)
        into = target.is_dir() or len(sources) > 1
        for src in sources:
            if not src.is_file():
                raise RecipeError(f"{self.where(line)}: not a file: {src}")
            dst = target / src.name if into else target
            if not dst.parent.is_dir():
                raise RecipeError(f"{self.where(line)}: no directory {dst.parent} (missing $(INSTALL_DIR)?)")
            shutil.copyfile(src, dst)
            dst.chmod(mode)

    def copy(self, rest: list[str], line: Line, args: dict[str, str]) -> None:
        """cp -fpR SOURCES... DEST."""
        if len(rest) < 2:
            raise RecipeError(f"{self.where(line)}: $(CP) needs a source and a destination")
        sources = [s for raw in rest[:-1] for s in self.sources(raw, line, args)]
        target = self.dest(self.path(rest[-1], line, args), line)
        into = target.is_dir() or len(sources) > 1 or rest[-1].endswith("/")
        if into and not target.is_dir():
            raise RecipeError(f"{self.where(line)}: no directory {target}")
        for src in sources:
            dst = target / src.name if into else target
            if src.is_symlink():
                raise RecipeError(f"{self.where(line)}: symbolic links are not packaged: {src}")
            if src.is_dir():
                shutil.copytree(src, dst, dirs_exist_ok=True, copy_function=shutil.copyfile,
                                ignore=shutil.ignore_patterns("__pycache__"))
                for p in [dst, *dst.rglob("*")]:
                    p.chmod(0o755 if p.is_dir() else normal_mode(src / p.relative_to(dst)))
            else:
                shutil.copyfile(src, dst)
                dst.chmod(normal_mode(src))

    def echo(self, raw_text: str, raw_dest: str, line: Line, args: dict[str, str]) -> None:
        try:
            value = expand(raw_text, {**self.variables, **args}, self.where(line))
        except MakefileError as e:
            raise RecipeError(str(e)) from None
        if "$" in value:
            raise RecipeError(f"{self.where(line)}: echo: shell expansion not implemented here: {raw_text}")
        dst = self.dest(self.path(raw_dest, line, args), line)
        if not dst.parent.is_dir():
            raise RecipeError(f"{self.where(line)}: no directory {dst.parent} (missing $(INSTALL_DIR)?)")
        dst.write_text(value + "\n")
        dst.chmod(0o644)

    def check(self, text: str, line: Line, args: dict[str, str]) -> None:
        try:
            script = expand(text, {**self.variables, **args}, self.where(line))
        except MakefileError as e:
            raise RecipeError(str(e)) from None
        proc = subprocess.run(["/bin/sh", "-c", script], cwd=self.mk.directory, capture_output=True, text=True,
                              env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")}, timeout=60)
        if proc.returncode != 0:
            message = proc.stderr.strip() or proc.stdout.strip() or f"check failed: {script}"
            raise RecipeError(f"{self.where(line)}: {message}")
