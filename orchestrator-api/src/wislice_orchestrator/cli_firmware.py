"""CLI commands for fleet upgrades (operators, issue 18): ``firmware upload|list|rm`` and ``rollout
start|list|show|cancel``. Kept beside cli.py, which holds the others."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import requests

from .cli_base import CliError, show, table

AP_COLUMNS = ["agent_id", "stage", "state", "attempts", "from_version", "reason"]
ROLLOUT_COLUMNS = ["rollout_id", "firmware_id", "version", "status", "counts", "created_at", "reason"]


def cmd_upload(a: argparse.Namespace, c: Any) -> None:
    image, sig = Path(a.file), Path(a.signature or f"{a.file}.sig")
    for path in (image, sig):
        if not path.is_file():
            raise CliError(f"{path}: no such file" + (" (the usign signature: --signature FILE)" if path == sig
                                                      else ""))
    form = {"version": a.version, "kind": a.kind, "signature": sig.read_text(encoding="utf-8")}
    try:
        with image.open("rb") as f:
            resp = c.http.post(f"{c.url}/api/v1/firmware", data=form, files={"file": (image.name, f)}, timeout=300)
    except requests.RequestException as exc:
        raise CliError(f"cannot reach {c.url}: {exc}") from exc
    if resp.status_code >= 400:
        try:
            problem = resp.json()
        except ValueError:
            raise CliError(f"{resp.status_code}: {resp.text[:300]}") from None
        errors = problem.get("errors")
        raise CliError(f"{resp.status_code} {problem.get('title')}: {problem.get('detail') or ''}"
                       + (f"\n{json.dumps(errors, indent=2)}" if errors else ""))
    show(a, resp.json(), None, ["firmware_id", "version", "kind", "size", "sha256", "key_id"])


def cmd_list_firmware(a: argparse.Namespace, c: Any) -> None:
    show(a, c.call("GET", "/firmware"), "firmware", ["firmware_id", "version", "kind", "size", "sha256",
                                                     "created_at"])


def cmd_rm_firmware(a: argparse.Namespace, c: Any) -> None:
    c.call("DELETE", f"/firmware/{a.id}")
    print(f"firmware {a.id} deleted")


def cmd_start(a: argparse.Namespace, c: Any) -> None:
    body = {"firmware_id": a.firmware, "aps": "all" if a.all else a.aps.split(","), "stage_size": a.stage_size,
            "parallel": a.parallel, "max_failures": a.max_failures, "timeout_s": a.timeout,
            "retry_offline_s": a.retry_offline}
    rollout = c.call("POST", "/rollouts", body)
    _print_rollout(a, _watch(a, c, rollout) if a.wait else rollout)


def cmd_list_rollouts(a: argparse.Namespace, c: Any) -> None:
    show(a, c.call("GET", "/rollouts"), "rollouts", ROLLOUT_COLUMNS)


def cmd_show(a: argparse.Namespace, c: Any) -> None:
    rollout = c.call("GET", f"/rollouts/{a.id}")
    _print_rollout(a, _watch(a, c, rollout) if a.wait else rollout)


def cmd_cancel(a: argparse.Namespace, c: Any) -> None:
    _print_rollout(a, c.call("POST", f"/rollouts/{a.id}/cancel"))


def _watch(a: argparse.Namespace, c: Any, rollout: dict[str, Any]) -> dict[str, Any]:
    """Poll until the rollout has finished (no AP waiting or upgrading), at most --wait seconds."""
    deadline = time.monotonic() + a.wait
    while rollout["finished_at"] is None:
        if time.monotonic() > deadline:
            raise CliError(f"rollout {rollout['rollout_id']} still {rollout['status']} after {a.wait:g} s: "
                           f"{rollout['counts']}")
        time.sleep(1.0)
        rollout = c.call("GET", f"/rollouts/{rollout['rollout_id']}")
    return rollout


def _print_rollout(a: argparse.Namespace, rollout: dict[str, Any]) -> None:
    if a.json:
        show(a, rollout, None, [])
        return
    print(table([rollout], ROLLOUT_COLUMNS))
    print(table(rollout["aps"], AP_COLUMNS))


def add_parsers(sub: Any) -> None:
    fw = sub.add_parser("firmware", help="signed firmware artifacts for fleet upgrades (operators)")
    fa = fw.add_subparsers(dest="firmware_action", required=True)
    up = fa.add_parser("upload", help="upload a sysupgrade image or package set with its usign signature")
    up.add_argument("file")
    up.add_argument("--version", required=True, help="the version agents will report once on it")
    up.add_argument("--kind", choices=["sysupgrade", "packages"], default="sysupgrade")
    up.add_argument("--signature", help="the usign .sig file (default: FILE.sig)")
    up.set_defaults(run=cmd_upload)
    fa.add_parser("list", help="stored artifacts").set_defaults(run=cmd_list_firmware)
    rm = fa.add_parser("rm", help="delete an artifact (refused while a rollout of it runs)")
    rm.add_argument("id", type=int)
    rm.set_defaults(run=cmd_rm_firmware)

    ro = sub.add_parser("rollout", help="staged fleet upgrades (operators)")
    ra = ro.add_subparsers(dest="rollout_action", required=True)
    st = ra.add_parser("start", help="upgrade APs to a firmware in stages")
    st.add_argument("firmware", type=int, help="firmware id")
    which = st.add_mutually_exclusive_group(required=True)
    which.add_argument("--aps", help="agent ids, comma-separated, in order (the first --stage-size go first)")
    which.add_argument("--all", action="store_true", help="every AP the WiFi controller knows")
    st.add_argument("--stage-size", type=int, default=1, help="APs in the first stage (1)")
    st.add_argument("--parallel", type=int, default=10, help="APs upgrading at once after it (10)")
    st.add_argument("--max-failures", type=int, default=1, help="halt once this many failed or rolled back (1)")
    st.add_argument("--timeout", type=int, default=600, help="seconds an AP has to come back on it (600)")
    st.add_argument("--retry-offline", type=int, default=3600,
                    help="seconds an offline AP is waited for (3600)")
    st.add_argument("--wait", type=float, default=0, metavar="S", help="follow it until it finished, S at most")
    st.set_defaults(run=cmd_start)
    ra.add_parser("list", help="rollouts, newest first").set_defaults(run=cmd_list_rollouts)
    sh = ra.add_parser("show", help="a rollout with each AP's progress")
    sh.add_argument("id", type=int)
    sh.add_argument("--wait", type=float, default=0, metavar="S", help="follow it until it finished, S at most")
    sh.set_defaults(run=cmd_show)
    ca = ra.add_parser("cancel", help="ask no more APs (those upgrading go on to their end)")
    ca.add_argument("id", type=int)
    ca.set_defaults(run=cmd_cancel)
