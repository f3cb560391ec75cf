"""Firmware upgrades (upgradeFirmware, spec/agent/PROTOCOL.md; issue 18): download, check, install, come back.

The request is checked and answered at once; the work runs on a thread of its own (the agent's loop never waits
for a download or an install), one upgrade at a time. Each step is a firmwareProgress event:

    downloading -> verifying -> installing -> restarting -> done | failed | rolled_back

- download: http/https only (redirects too), at most max_bytes, within download_timeout_s; a body shorter than
  its Content-Length is a truncated download;
- verify: sha256 of the bytes, then the usign signature against the trusted keys (wislice_agent_proto.usign);
- install by kind: "sysupgrade" runs ``sysupgrade -T IMG`` then ``sysupgrade IMG`` (OpenWrt; it reboots);
  "packages" (a tar of .ipk files) runs ``opkg install --force-reinstall FILES`` after keeping the installed set
  (cache_dir: the .ipk files of the last upgrade that came back, the image's own set before that) for rollback;
- restart: the state file (state_dir/upgrade.json) records the upgrade and its time left before anything is
  replaced, and the agent restarts (opkg's maintainer scripts or sysupgrade's reboot may do it first). The agent
  that starts next reads it: once connected to the controller while running the new version (its version file)
  it reports done; past timeout_s it reinstalls the kept set (rolled_back) or, after a sysupgrade, which cannot be
  rolled back, reports failed. opkg runs in a session of its own so an agent stopped by its own package's
  scripts does not take it down.
The latest state is repeated after every welcome (a controller that was away learns the end).
"""

from __future__ import annotations

import hashlib
import http.client
import json
import logging
import os
import re
import shutil
import ssl
import subprocess
import tarfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from wislice_agent_proto import usign
from wislice_agent_proto.errors import AgentError

log = logging.getLogger("wislice_ap_agent.firmware")

ACTIVE = ("downloading", "verifying", "installing", "restarting")
ENDS = ("done", "failed", "rolled_back")
IPK_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+~-]{0,127}\.ipk\Z")
VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+~-]{0,63}\Z")
CHUNK = 65536
INSTALL_TIMEOUT_S = 900.0
MAX_REASON = 1024


@dataclass
class FirmwareSettings:
    keys_dir: str = "/etc/opkg/keys"  # trusted usign public keys (files named by key id, as opkg's)
    version_file: str = "/etc/wislice/firmware_version"  # the running firmware's version, one line
    state_dir: str = "/etc/wislice/firmware"  # upgrade.json and the kept set: must survive a restart
    cache_dir: str = "/etc/wislice/firmware/installed"  # the installed .ipk set
    work_dir: str = "/tmp/wislice-firmware"  # downloads and unpacked package sets
    max_bytes: int = 64 << 20
    download_timeout_s: float = 300.0
    ca_file: str | None = None  # https: the CA to check the server against (else the system's)


class UpgradeFailed(Exception):
    """Ends an upgrade: state failed or rolled_back with the reason."""


def read_version(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read(256).strip()
    except OSError:
        return None
    return text if VERSION.match(text) else None


class _HttpOnlyRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any, newurl: str) -> Any:
        if urllib.parse.urlsplit(newurl).scheme not in ("http", "https"):
            raise UpgradeFailed(f"download failed: redirected to a non-http(s) URL ({newurl[:100]})")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


class Upgrader:
    def __init__(self, settings: FirmwareSettings, emit: Callable[[str, dict[str, Any]], None],
                 restart: Callable[[], None], now: Callable[[], float] = time.monotonic) -> None:
        """now: the clock of deadlines, monotonic: the wall clock of an AP that booted without one may jump."""
        self.s = settings
        self.emit_event = emit
        self.restart = restart
        self.now = now
        self.version = read_version(settings.version_file)
        self.lock = threading.Lock()
        self.worker: threading.Thread | None = None
        self.record = self._load()
        # An upgrade that was installing or restarting when this agent started: this is the agent it waited for.
        self.resumed = self.record is not None and self.record["state"] in ("installing", "restarting")
        self.sessions_seen = 0

    # ---- the request ---------------------------------------------------------------------------------------------

    def request(self, p: dict[str, Any]) -> dict[str, Any]:
        """upgradeFirmware's handler (params checked against the schema): accepted, or an AgentError now."""
        if not usign.keys_from_dir(self.s.keys_dir):
            raise AgentError("unsupported", f"no trusted firmware keys in {self.s.keys_dir}")
        tool = "sysupgrade" if p["kind"] == "sysupgrade" else "opkg"
        if shutil.which(tool) is None:
            raise AgentError("unsupported", f"{p['kind']} upgrades need {tool}, which this AP does not have")
        try:
            signature = usign.parse_signature(p["signature"])
        except usign.UsignError as e:
            raise AgentError("bad_request", str(e)) from None
        with self.lock:
            rec = self.record
            if (self.worker is not None and self.worker.is_alive()) or (rec is not None and rec["state"] in ACTIVE):
                assert rec is not None
                raise AgentError("conflict", f"an upgrade to {rec['version']} is in progress ({rec['state']})")
            self.record = {"version": p["version"], "kind": p["kind"], "state": "downloading", "reason": "",
                           "timeout_s": p["timeout_s"], "from_version": self.version, "deadline": None}
            self.resumed = False
            self.worker = threading.Thread(target=self._upgrade, args=(p, signature), name="firmware-upgrade",
                                           daemon=True)
            self.worker.start()
        return {"accepted": True}

    # ---- the agent's loop ----------------------------------------------------------------------------------------

    def tick(self, connected: bool, sessions: int) -> None:
        """From the agent's loop (about once a second): ends an upgrade that waited for this agent, and repeats the
        latest state after each welcome."""
        with self.lock:
            rec = dict(self.record) if self.record is not None else None
            busy = self.worker is not None and self.worker.is_alive()
        repeat = connected and sessions != self.sessions_seen
        if connected:
            self.sessions_seen = sessions
        if rec is not None and rec["state"] in ("installing", "restarting") and not busy:
            if self.resumed and rec.get("rollback"):
                self._rolled_back(rec)  # this agent is the one the rollback's opkg started
                return
            if self.resumed and connected and self.version == rec["version"]:
                try:
                    self._finish()  # reports done
                except OSError as e:  # the loop goes on; done is reported all the same
                    log.warning("firmware %s: keeping the installed set failed: %s", rec["version"], e)
                    self._end("done", f"running {rec['version']}, connected (the package cache: {e})")
                return
            if rec.get("deadline") is not None and self.now() >= rec["deadline"]:
                why = (f"not back on {rec['version']} within {rec['timeout_s']} s "
                       f"(running {self.version or 'an unknown version'}, "
                       f"{'connected' if connected else 'not connected'})")
                self._start(self._roll_back, why)
        if repeat and rec is not None:
            self._emit(rec)

    def busy(self) -> bool:
        with self.lock:
            return self.worker is not None and self.worker.is_alive()

    # ---- the work (on the worker thread) ---------------------------------------------------------------------------

    def _start(self, target: Callable[..., None], *args: Any) -> None:
        with self.lock:
            if self.worker is not None and self.worker.is_alive():
                return
            self.worker = threading.Thread(target=self._guarded, args=(target, *args), name="firmware-upgrade",
                                           daemon=True)
            self.worker.start()

    def _guarded(self, target: Callable[..., None], *args: Any) -> None:
        try:
            target(*args)
        except Exception as e:  # an agent bug must still end the upgrade, not leave it running forever
            log.exception("firmware upgrade")
            self._end("failed", f"internal error: {e}")

    def _upgrade(self, p: dict[str, Any], signature: usign.Signature) -> None:
        try:
            shutil.rmtree(self.s.work_dir, ignore_errors=True)
            os.makedirs(self.s.work_dir, exist_ok=True)
            artifact = os.path.join(self.s.work_dir, "artifact")
            self._state("downloading")
            digest = self._download(p["url"], artifact)
            self._state("verifying")
            if digest != p["sha256"]:
                raise UpgradeFailed(f"checksum mismatch: sha256 {digest}, expected {p['sha256']}")
            try:
                key = usign.verify_file(artifact, signature, usign.keys_from_dir(self.s.keys_dir))
            except usign.UsignError as e:
                raise UpgradeFailed(str(e)) from None
            log.info("firmware %s: signature by trusted key %s (%s)", p["version"], key.key_hex, key.source)
            if p["kind"] == "sysupgrade":
                self._sysupgrade(artifact)
            else:
                self._packages(artifact)
        except UpgradeFailed as e:
            self._end("failed", str(e))
        except Exception as e:  # an agent bug must still end the upgrade, not leave it running forever
            log.exception("firmware upgrade")
            self._end("failed", f"internal error: {e}")

    def _download(self, url: str, path: str) -> str:
        """Fetches url into path; its sha256 (hex)."""
        ctx = ssl.create_default_context(cafile=self.s.ca_file)
        opener = urllib.request.build_opener(_HttpOnlyRedirects(), urllib.request.HTTPSHandler(context=ctx))
        deadline = time.monotonic() + self.s.download_timeout_s
        digest, got = hashlib.sha256(), 0
        try:
            with opener.open(url, timeout=min(30.0, self.s.download_timeout_s)) as resp, open(path, "wb") as out:
                length = resp.headers.get("Content-Length")
                expected = int(length) if length and length.isdigit() else None
                if expected is not None and expected > self.s.max_bytes:
                    raise UpgradeFailed(f"download of {expected} bytes exceeds the limit of {self.s.max_bytes}")
                while chunk := resp.read(CHUNK):
                    got += len(chunk)
                    if got > self.s.max_bytes:
                        raise UpgradeFailed(f"download exceeds the limit of {self.s.max_bytes} bytes")
                    if time.monotonic() > deadline:
                        raise UpgradeFailed(f"download failed: not complete within {self.s.download_timeout_s:g} s")
                    digest.update(chunk)
                    out.write(chunk)
        except http.client.IncompleteRead as e:
            raise UpgradeFailed(f"truncated download: got {got + len(e.partial)} of "
                                f"{got + len(e.partial) + (e.expected or 0)} bytes") from None
        except urllib.error.HTTPError as e:
            e.close()
            raise UpgradeFailed(f"download failed: HTTP {e.code} {e.reason}") from None
        except urllib.error.URLError as e:
            raise UpgradeFailed(f"download failed: {e.reason}") from None
        except (OSError, http.client.HTTPException, ValueError) as e:
            raise UpgradeFailed(f"download failed: {e or type(e).__name__}") from None
        if expected is not None and got != expected:
            raise UpgradeFailed(f"truncated download: got {got} of {expected} bytes")
        return digest.hexdigest()

    def _sysupgrade(self, image: str) -> None:
        self._state("installing")
        rc, out = _run(["sysupgrade", "-T", image])
        if rc != 0:
            raise UpgradeFailed(f"install error: sysupgrade -T refused the image (exit {rc}){_tail(out)}")
        # Recorded before the flash: what runs next reads it.
        self._state("restarting", deadline=True)
        rc, out = _run(["sysupgrade", image])
        if rc != 0:
            raise UpgradeFailed(f"install error: sysupgrade exited {rc}{_tail(out)}")

    def _packages(self, tar_path: str) -> None:
        # Beside the state file, not in work_dir: it becomes the installed set once done, also after a reboot.
        new_dir = os.path.join(self.s.state_dir, "new")
        files = self._unpack(tar_path, new_dir)
        kept = os.path.join(self.s.state_dir, "kept")
        shutil.rmtree(kept, ignore_errors=True)
        os.makedirs(kept)
        for name in _ipks(self.s.cache_dir):
            shutil.copy2(os.path.join(self.s.cache_dir, name), os.path.join(kept, name))
        self._state("installing", deadline=True)
        rc, out = _run(["opkg", "install", "--force-reinstall", *files])
        if rc != 0:
            self._roll_back(f"install error: opkg install exited {rc}{_tail(out)}")
            return
        self._state("restarting")
        log.info("firmware %s installed: restarting the agent", self.record and self.record["version"])
        self.restart()

    def _unpack(self, tar_path: str, into: str) -> list[str]:
        """The package set's .ipk files, written flat into ``into`` (names checked: nothing lands elsewhere)."""
        shutil.rmtree(into, ignore_errors=True)
        os.makedirs(into)
        files, total = [], 0
        try:
            with tarfile.open(tar_path, "r:*") as tar:
                for member in tar:
                    name = os.path.basename(member.name)
                    if not member.isfile() or not name.endswith(".ipk"):
                        continue
                    if not IPK_NAME.match(name) or name in (os.path.basename(f) for f in files):
                        raise UpgradeFailed(f"install error: bad package file name in the set: {member.name[:100]}")
                    total += member.size
                    if total > self.s.max_bytes:
                        raise UpgradeFailed("install error: the package set unpacks beyond the size limit")
                    src = tar.extractfile(member)
                    assert src is not None
                    with src, open(os.path.join(into, name), "wb") as dst:
                        shutil.copyfileobj(src, dst)
                    files.append(os.path.join(into, name))
        except (tarfile.TarError, OSError, EOFError) as e:
            raise UpgradeFailed(f"install error: not a readable tar of .ipk files: {e}") from None
        if not files:
            raise UpgradeFailed("install error: the package set holds no .ipk file")
        return sorted(files)

    def _roll_back(self, why: str) -> None:
        """Restores the kept package set (a sysupgrade cannot be rolled back): rolled_back, else failed."""
        rec = self.record or {}
        if rec.get("kind") == "sysupgrade":
            self._end("failed", f"{why}; a sysupgrade cannot be rolled back")
            return
        kept = os.path.join(self.s.state_dir, "kept")
        files = [os.path.join(kept, n) for n in _ipks(kept)]
        if not files:
            self._end("failed", f"{why}; no kept package set to roll back to")
            return
        # Recorded first: reinstalling the agent's own package stops this agent half-way (its prerm), and the agent
        # opkg's postinst starts then ends the upgrade (tick) instead of waiting and rolling back once more.
        with self.lock:
            assert self.record is not None
            self.record["rollback"], self.record["deadline"] = why, None
            saved = dict(self.record)
        self._save(saved)
        rc, out = _run(["opkg", "install", "--force-reinstall", "--force-downgrade", *files])
        if rc != 0:
            self._end("failed", f"{why}; reinstalling the kept packages failed too (exit {rc}){_tail(out)}")
            return
        self._end("rolled_back", f"{why}; reinstalled the kept packages ({rec.get('from_version') or 'previous'})")
        self.restart()  # the old agent runs again (its files are back)

    def _rolled_back(self, rec: dict[str, Any]) -> None:
        """Started by the rollback's reinstall (which stopped the agent that ran it): the end it could not report."""
        old = rec.get("from_version")
        if old is not None and self.version != old:
            self._end("failed", f"{rec['rollback']}; reinstalled the kept packages, but running "
                                f"{self.version or 'an unknown version'}, not {old}")
            return
        self._end("rolled_back", f"{rec['rollback']}; reinstalled the kept packages ({old or 'previous'})")

    def _finish(self) -> None:
        """Connected on the new version: the new package set becomes the installed one."""
        rec = self.record
        assert rec is not None
        new_dir = os.path.join(self.s.state_dir, "new")
        if rec["kind"] == "packages" and _ipks(new_dir):
            os.makedirs(self.s.cache_dir, exist_ok=True)
            for name in _ipks(self.s.cache_dir):
                os.unlink(os.path.join(self.s.cache_dir, name))
            for name in _ipks(new_dir):
                shutil.copy2(os.path.join(new_dir, name), os.path.join(self.s.cache_dir, name))
        for kept in ("kept", "new"):
            shutil.rmtree(os.path.join(self.s.state_dir, kept), ignore_errors=True)
        shutil.rmtree(self.s.work_dir, ignore_errors=True)
        self._end("done", f"running {rec['version']}, connected to the controller")

    # ---- state -----------------------------------------------------------------------------------------------------

    def _state(self, state: str, deadline: bool = False) -> None:
        with self.lock:
            rec = self.record
            assert rec is not None
            rec["state"], rec["reason"] = state, ""
            if deadline:
                rec["deadline"] = self.now() + rec["timeout_s"]
            rec = dict(rec)
        self._save(rec)
        self._emit(rec)

    def _end(self, state: str, reason: str) -> None:
        with self.lock:
            rec = self.record
            assert rec is not None
            rec["state"], rec["reason"], rec["deadline"] = state, reason[:MAX_REASON], None
            rec = dict(rec)
        log.log(logging.INFO if state == "done" else logging.WARNING, "firmware %s: %s %s", rec["version"], state,
                reason)
        self._save(rec)
        self._emit(rec)

    def _emit(self, rec: dict[str, Any]) -> None:
        data = {"version": rec["version"], "state": rec["state"]}
        if rec.get("reason"):
            data["reason"] = rec["reason"]
        self.emit_event("firmwareProgress", data)

    def _path(self) -> str:
        return os.path.join(self.s.state_dir, "upgrade.json")

    def _load(self) -> dict[str, Any] | None:
        try:
            with open(self._path(), encoding="utf-8") as f:
                rec = json.load(f)
        except (OSError, ValueError):
            return None
        ok = (isinstance(rec, dict) and rec.get("state") in ACTIVE + ENDS and isinstance(rec.get("version"), str)
              and VERSION.match(rec["version"]) and rec.get("kind") in ("sysupgrade", "packages")
              and isinstance(rec.get("timeout_s"), int))
        if not ok:
            log.warning("ignoring a malformed %s", self._path())
            return None
        if rec["state"] in ("downloading", "verifying"):
            # The agent stopped before installing anything: nothing changed, nothing to wait for.
            rec.update(state="failed", reason="the agent restarted before the upgrade was installed")
        # The file holds the time left when it was written; the time the restart took is not counted (no clock
        # survives a reboot reliably), so the new agent gets at most that much longer.
        remaining = rec.pop("remaining_s", None)
        ok_time = isinstance(remaining, int | float) and rec["state"] in ("installing", "restarting")
        rec["deadline"] = self.now() + max(0.0, float(remaining)) if ok_time else None
        return rec

    def _save(self, rec: dict[str, Any]) -> None:
        """Written to a temporary file and renamed, so a restart never finds half a record."""
        os.makedirs(self.s.state_dir, exist_ok=True)
        stored = {k: v for k, v in rec.items() if k != "deadline"}
        if rec.get("deadline") is not None:
            stored["remaining_s"] = round(max(0.0, rec["deadline"] - self.now()), 3)
        tmp = self._path() + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(stored, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self._path())


def _ipks(directory: str) -> list[str]:
    try:
        return sorted(n for n in os.listdir(directory) if n.endswith(".ipk"))
    except OSError:
        return []


def _run(argv: list[str]) -> tuple[int, str]:
    """A tool of the install, in a session of its own; (exit status, its output)."""
    try:
        run = subprocess.run(argv, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S, check=False,
                             start_new_session=True)
    except (OSError, subprocess.TimeoutExpired) as e:
        return 127, str(e)
    return run.returncode, (run.stderr + run.stdout).strip()


def _tail(out: str) -> str:
    return f": {out[-300:]}" if out else ""
