"""What every `wislice` client command shares: its error, the REST client, and the table/JSON output. Its own
module so the command modules (cli.py, cli_slices.py, cli_clients.py, cli_firmware.py) import it, not each other."""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from typing import Any

import requests


class CliError(Exception):
    pass


# --- output ---------------------------------------------------------------------------------------------------
def table(rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> str:
    """A plain text table with the given columns; nested values are shown compactly."""
    def cell(value: Any) -> str:
        if value is None:
            return "-"
        if isinstance(value, dict | list):
            return json.dumps(value, separators=(",", ":"))
        return str(value)

    cells = [[cell(r.get(c)) for c in columns] for r in rows]
    widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(columns)]
    lines = ["  ".join(c.upper().ljust(w) for c, w in zip(columns, widths, strict=True)).rstrip()]
    lines += ["  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip() for row in cells]
    return "\n".join(lines)


# --- REST client ----------------------------------------------------------------------------------------------
class Client:
    def __init__(self, url: str, token: str | None) -> None:
        self.url = url.rstrip("/")
        self.http = requests.Session()
        if token:
            self.http.headers["Authorization"] = f"Bearer {token}"

    def call(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None) -> Any:
        try:
            resp = self.http.request(method, self.url + "/api/v1" + path, json=body, headers=headers, timeout=30)
        except requests.RequestException as exc:
            raise CliError(f"cannot reach {self.url}: {exc}") from exc
        if resp.status_code >= 400:
            try:
                problem = resp.json()
                detail = problem.get("detail") or problem.get("title")
                extra = problem.get("errors")
                raise CliError(f"{resp.status_code} {problem.get('title')}: {detail}"
                               + (f"\n{json.dumps(extra, indent=2)}" if extra else ""))
            except ValueError:
                raise CliError(f"{resp.status_code}: {resp.text[:300]}") from None
        return resp.json() if resp.content else None

    def wait(self, op: dict[str, Any], timeout_s: float = 120) -> dict[str, Any]:
        deadline = time.monotonic() + timeout_s
        while op["status"] in ("pending", "running", "rolling_back"):
            if time.monotonic() > deadline:
                raise CliError(f"operation {op['operation_id']} still {op['status']} after {timeout_s:g} s")
            time.sleep(0.2)
            op = self.call("GET", f"/operations/{op['operation_id']}")
        return op


# --- helpers of the commands ----------------------------------------------------------------------------------
def tenant_id(args: argparse.Namespace, client: Client) -> int:
    """--tenant N, or else the token's own tenant (operators have none and must say it)."""
    if args.tenant is not None:
        return args.tenant
    me = client.call("GET", "/me")
    if me["tenant_id"] is None:
        raise CliError("operators must say --tenant N")
    return me["tenant_id"]


def show(args: argparse.Namespace, data: Any, key: str | None, columns: Sequence[str]) -> None:
    if args.json:
        print(json.dumps(data, indent=2, sort_keys=True))
        return
    rows = data[key] if key else [data]
    print(table(rows, columns))

