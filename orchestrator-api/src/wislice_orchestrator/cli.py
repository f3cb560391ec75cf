"""`wislice`: the command line for tenants and operators over the REST API, plus server-side admin commands.

Client commands read WISLICE_URL (default http://127.0.0.1:8080) and WISLICE_TOKEN; --json prints raw JSON.
Server commands (serve, db-upgrade, create-operator-token) use the WISLICE_* settings of the service itself.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import requests

from . import cli_clients, cli_firmware
from .cli_slice_args import latency_lines, probe_arg, transcode_arg
from .schemas.slices import HANDOVER_POLICIES


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


# --- commands -------------------------------------------------------------------------------------------------
def _vap_arg(text: str) -> dict[str, Any]:
    """AGENT[:RADIO]=SSID[:PASSPHRASE]"""
    try:
        where, ssid = text.split("=", 1)
    except ValueError:
        raise argparse.ArgumentTypeError("use AGENT[:RADIO]=SSID[:PASSPHRASE]") from None
    agent, _, radio = where.partition(":")
    ssid, _, phrase = ssid.partition(":")
    vap: dict[str, Any] = {"agent_id": agent, "radio": radio or "phy0", "ssid": ssid}
    vap["security"] = {"mode": "wpa2-psk", "passphrase": phrase} if phrase else {"mode": "open"}
    return vap


def _vnf_arg(text: str) -> dict[str, Any]:
    """IMAGE[:CPU[:MEMORY_MIB]]"""
    parts = text.split(":")
    try:
        vnf: dict[str, Any] = {"image": parts[0]}
        if len(parts) > 1:
            vnf["cpu"] = float(parts[1])
        if len(parts) > 2:
            vnf["memory_mib"] = int(parts[2])
    except ValueError:
        raise argparse.ArgumentTypeError("use IMAGE[:CPU[:MEMORY_MIB]]") from None
    return vnf


def _tenant(args: argparse.Namespace, client: Client) -> int:
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


def cmd_me(a, c):
    show(a, c.call("GET", "/me"), None, ["role", "tenant_id"])


def cmd_tenants(a, c):
    if a.action == "list":
        data = c.call("GET", "/tenants")
        for t in data["tenants"]:
            t["slices"] = f"{t['usage']['slices']}/{t['quota']['slices']}"
            t["vaps"] = f"{t['usage']['vaps']}/{t['quota']['vaps']}"
            t["kbps"] = f"{t['usage']['bandwidth_kbps']}/{t['quota']['bandwidth_kbps']}"
        show(a, data, "tenants", ["tenant_id", "name", "slices", "vaps", "kbps"])
    elif a.action == "add":
        show(a, c.call("POST", "/tenants", {"tenant_id": a.id, "name": a.name}), None, ["tenant_id", "name"])
    elif a.action == "rm":
        c.call("DELETE", f"/tenants/{a.id}")
        print(f"tenant {a.id} removed")
    elif a.action == "token":
        show(a, c.call("POST", f"/tenants/{a.id}/tokens", {"name": a.name or "cli"}), None,
             ["tenant_id", "name", "token"])


def cmd_tokens(a: argparse.Namespace, c: Client) -> None:
    """tokens list/issue/revoke: a tenant's tokens (default: the caller's tenant; operators say --tenant N) or,
    with --operator, the operator tokens. Listings never show a secret; issue prints the new token once."""
    base = "/operator-tokens" if a.operator else f"/tenants/{_tenant(a, c)}/tokens"
    columns = ["token_id", "role", "tenant_id", "name", "created_at", "expires_at", "revoked", "last_used_at"]
    if a.action == "list":
        show(a, c.call("GET", base), "tokens", columns)
    elif a.action == "issue":
        body: dict[str, Any] = {"name": a.name or "cli"}
        if a.ttl is not None:
            body["ttl_s"] = a.ttl
        show(a, c.call("POST", base, body), None, ["token_id", "name", "expires_at", "token"])
    else:
        if a.id is None:
            raise CliError("say which token: wislice tokens revoke TOKEN_ID")
        c.call("DELETE", f"{base}/{a.id}")
        print(f"token {a.id} revoked")


def cmd_slices(a, c):
    t = _tenant(a, c)
    if a.action == "list":
        data = c.call("GET", f"/tenants/{t}/slices")
        for s in data["slices"]:
            s["vaps"], s["vnfs"] = len(s["vaps"]), len(s["vnfs"])
            s["down_kbps"] = f"{s['bandwidth']['down_guaranteed_kbps']}..{s['bandwidth']['down_cap_kbps'] or 'inf'}"
        show(a, data, "slices", ["slice_id", "name", "status", "latency_class", "down_kbps", "vaps", "vnfs",
                                 "mec_node"])
    elif a.action == "show":
        s = c.call("GET", f"/tenants/{t}/slices/{a.slice}")
        if s.get("probe"):  # a probed latency slice: its measured latency from the telemetry
            tele = c.call("GET", f"/tenants/{t}/slices/{a.slice}/telemetry?since={time.time():.0f}")
            s["latency"] = tele.get("latency")
        show(a, s, None, ["slice_id", "name", "status", "status_reason", "latency_class", "latency_budget_us",
                          "mec_node", "tag"])
        if s.get("probe") and not a.json:
            print("\n".join(latency_lines(s["latency"])))
    elif a.action == "create":
        body = {"name": a.name, "latency_class": a.latency, "vaps": a.vap, "vnfs": a.vnf or [],
                "policies": a.transcode or [], "latency_budget_us": a.budget_us, "probe": a.probe,
                "handover_policy": a.handover_policy,
                "bandwidth": {"down_guaranteed_kbps": a.down, "up_guaranteed_kbps": a.up,
                              "down_cap_kbps": a.down_cap, "up_cap_kbps": a.up_cap}}
        headers = {"Idempotency-Key": a.idempotency_key} if a.idempotency_key else None
        op = c.call("POST", f"/tenants/{t}/slices", body, headers)
        if not a.no_wait:
            op = c.wait(op)
        show(a, op, None, ["operation_id", "slice_id", "status", "progress", "error"])
        if op["status"] == "failed":
            raise CliError(f"slice creation failed: {op['error']}")
    elif a.action == "rm":
        op = c.call("DELETE", f"/tenants/{t}/slices/{a.slice}")
        show(a, op if a.no_wait else c.wait(op), None, ["operation_id", "slice_id", "status", "error"])
    elif a.action == "stats":
        show(a, c.call("GET", f"/tenants/{t}/slices/{a.slice}/stats"), None, ["slice_id", "tx_bps", "rx_bps",
                                                                               "clients"])


def cmd_slice(a, c):
    """slice update TENANT SLICE: change a live slice's bandwidth (the options given), latency class and/or budget;
    slice policies TENANT SLICE: show its policies and their state, or replace them (--transcode, --clear)."""
    if a.action == "policies":
        url = f"/tenants/{a.tenant}/slices/{a.slice}"
        data = (c.call("PUT", url + "/policies", {"policies": [] if a.clear else a.transcode})
                if a.clear or a.transcode else c.call("GET", url))
        rows = [{"policy": i, "type": p["type"], "per_client_kbps": p["per_client_down_kbps"],
                 "bitrate_kbps": p["transcoder"]["bitrate_kbps"], **{k: st.get(k) for k in
                 ("state", "vnf_id", "reaction_s", "reason")}}
                for i, (p, st) in enumerate(zip(data["policies"], data["policy_state"], strict=False))]
        show(a, {"policies": rows} if not a.json else data, "policies",
             ["policy", "type", "per_client_kbps", "bitrate_kbps", "state", "vnf_id", "reaction_s", "reason"])
        return
    body: dict[str, Any] = {}
    bandwidth = {f"{way}_{kind}_kbps": getattr(a, f"{way}_{kind}") for way in ("down", "up")
                 for kind in ("guaranteed", "cap") if getattr(a, f"{way}_{kind}") is not None}
    if bandwidth:
        body["bandwidth"] = bandwidth
    if a.latency_class:
        body["latency_class"] = a.latency_class
    if a.budget_us is not None:
        body["latency_budget_us"] = a.budget_us
    if a.handover_policy:
        body["handover_policy"] = a.handover_policy
    if not body:
        raise CliError("nothing to change: give --down-guaranteed/--down-cap/--up-guaranteed/--up-cap, "
                       "--latency-class, --budget-us and/or --handover-policy")
    op = c.call("PATCH", f"/tenants/{a.tenant}/slices/{a.slice}", body)
    if not a.no_wait:
        op = c.wait(op)
    show(a, op, None, ["operation_id", "slice_id", "status", "progress", "error"])
    if op["status"] == "failed":
        raise CliError(f"slice change failed (old rates restored): {op['error']}")


def cmd_parts(what: str, columns: list[str]) -> Callable[[argparse.Namespace, Client], None]:
    def run(a, c):
        show(a, c.call("GET", f"/tenants/{_tenant(a, c)}/slices/{a.slice}/{what}"), what, columns)
    return run


def cmd_agents(a, c):
    data = c.call("GET", "/wifi-agents")
    for ag in data["agents"]:
        ag["radios"] = ", ".join(f"{r['name']} ch{r['channel']} {r['vaps_used']}/{r['max_vaps']}" for r in ag["radios"])
    show(a, data, "agents", ["agent_id", "connected", "address", "radios", "vaps", "clients"])


def cmd_mec(a, c):
    data = c.call("GET", "/mec-agents")
    for n in data["nodes"]:
        n["cpu"] = f"{n['used']['cpu']:g}/{n['capacity']['cpu']:g}"
        n["memory_mib"] = f"{n['used']['memory_mib']}/{n['capacity']['memory_mib']}"
    show(a, data, "nodes", ["agent_id", "connected", "cpu", "memory_mib", "catalog"])


def cmd_channel(a, c):
    show(a, c.call("POST", f"/wifi-agents/{a.agent}/radios/{a.radio}/channel", {"channel": a.channel}), None,
         ["radio"])


def cmd_kick(a, c):
    c.call("DELETE", f"/wifi-agents/{a.agent}/clients/{a.mac}")
    print(f"{a.mac} kicked from {a.agent}")


def cmd_op(a, c):
    op = c.call("GET", f"/operations/{a.id}")
    if a.wait:
        op = c.wait(op)
    if a.json:
        show(a, op, None, [])
        return
    print(table([op], ["operation_id", "kind", "slice_id", "status", "progress", "error"]))
    print(table(op["steps"], ["kind", "state", "seconds", "error"]))


def cmd_events(a, c):
    show(a, c.call("GET", "/events"), "events", ["id", "ts", "level", "kind", "message"])


# --- server-side commands -------------------------------------------------------------------------------------
def waitress_options(max_content_length: int) -> dict[str, Any]:
    """waitress buffers a whole body before the app sees it, so it needs its own bound to refuse a huge one
    cheaply (from the Content-Length, before reading it). Twice the app's limit: a body somewhat too large still
    reaches the app, which refuses it from its headers with the API's problem+json 413; a far larger one gets
    waitress's plain 413 without being read."""
    return {"threads": 8, "max_request_body_size": 2 * max_content_length}


def cmd_serve(a):
    from waitress import serve

    from .api.firmware import upload_limit
    from .app import create_app
    from .at_rest import KeyFileError
    from .firmware import FirmwareError

    try:
        app = create_app()
    except (KeyFileError, FirmwareError) as exc:
        raise CliError(str(exc)) from None  # said plainly at start, not a traceback
    # The firmware upload takes the largest body (api/firmware.py); waitress's one bound must let it through.
    largest = max(app.config["MAX_CONTENT_LENGTH"], (upload_limit(app.config) + 1) // 2)
    serve(app, host=a.host, port=a.port, **waitress_options(largest))


def cmd_db_upgrade(_a):
    from . import db
    from .config import from_environment

    engine, _box = _open_database(db, from_environment())
    engine.dispose()
    print("database schema is up to date")


def _open_database(db, settings):  # noqa: ANN001, ANN202 - the db module, (Engine, PassphraseBox)
    from .at_rest import KeyFileError

    try:
        return db.open_database(settings)
    except KeyFileError as exc:
        raise CliError(str(exc)) from None


def cmd_passphrase_key(a: argparse.Namespace) -> None:
    """Rotate the passphrase key, or forget a lost one (the service stopped; README: Passphrases at rest)."""
    from . import at_rest, db
    from .config import from_environment

    settings = from_environment()
    engine = db.make_engine(settings["DATABASE_URL"])
    try:
        path = at_rest.key_path(settings)
        if path is None:
            raise CliError("an in-memory database has no key file")
        if a.action == "rotate":
            old, new, count = at_rest.rotate_key(engine, path)
            print(f"passphrase key {old} -> {new} in {path}; {count} stored passphrase(s) sealed again")
        else:
            count = at_rest.forget_key(engine, path)
            print(f"forgot the lost key; {count} stored passphrase(s) dropped (their vAPs' creations roll back at "
                  "the next start, which creates a new key file)")
    except at_rest.KeyFileError as exc:
        raise CliError(str(exc)) from None
    finally:
        engine.dispose()


def cmd_create_operator_token(a: argparse.Namespace) -> None:
    from . import auth, db
    from .config import from_environment

    settings = from_environment()
    ttl = settings["OPERATOR_TOKEN_TTL_S"] if a.ttl is None else a.ttl
    if not 60 <= ttl <= settings["TOKEN_MAX_TTL_S"]:
        raise CliError(f"--ttl must be 60..{settings['TOKEN_MAX_TTL_S']} s (WISLICE_TOKEN_MAX_TTL_S)")
    engine, box = _open_database(db, settings)
    with db.make_session_factory(engine, box)() as session:
        token, row = auth.issue(session, "operator", None, a.name, ttl_s=ttl)
        session.commit()
    print(token)
    print(f"(shown once: only its hash is stored; token {row.id}, expires {row.expires_at:%Y-%m-%d %H:%M:%S} UTC)",
          file=sys.stderr)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="wislice", description=__doc__.splitlines()[0])
    p.add_argument("--url", default=os.environ.get("WISLICE_URL", "http://127.0.0.1:8080"))
    p.add_argument("--token", default=os.environ.get("WISLICE_TOKEN"), help="default: $WISLICE_TOKEN")
    p.add_argument("--json", action="store_true", help="print the API's JSON instead of tables")
    sub = p.add_subparsers(dest="command", required=True)

    sub.add_parser("me", help="who the token belongs to").set_defaults(run=cmd_me)
    t = sub.add_parser("tenants", help="tenants (operators)")
    t.add_argument("action", choices=["list", "add", "rm", "token"])
    t.add_argument("id", type=int, nargs="?")
    t.add_argument("name", nargs="?")
    t.set_defaults(run=cmd_tenants)

    tk = sub.add_parser("tokens", help="bearer tokens: list (never their secret), issue, revoke")
    tk.add_argument("action", choices=["list", "issue", "revoke"])
    tk.add_argument("id", type=int, nargs="?", help="the token to revoke (its token_id)")
    who = tk.add_mutually_exclusive_group()
    who.add_argument("--tenant", type=int, help="default: the token's tenant")
    who.add_argument("--operator", action="store_true", help="the operator tokens (operators)")
    tk.add_argument("--name", help="issue: the new token's name")
    tk.add_argument("--ttl", type=int, metavar="SECONDS", help="issue: its lifetime (default: the configured one)")
    tk.set_defaults(run=cmd_tokens)

    s = sub.add_parser("slices", help="slices of a tenant")
    s.add_argument("action", choices=["list", "show", "create", "rm", "stats"])
    s.add_argument("slice", type=int, nargs="?")
    s.add_argument("--tenant", type=int, help="default: the token's tenant")
    s.add_argument("--name")
    s.add_argument("--vap", type=_vap_arg, action="append", help="AGENT[:RADIO]=SSID[:PASSPHRASE], repeatable")
    s.add_argument("--vnf", type=_vnf_arg, action="append", help="IMAGE[:CPU[:MEMORY_MIB]], in chain order")
    s.add_argument("--down", type=int, default=0, help="guaranteed downlink kbps")
    s.add_argument("--up", type=int, default=0, help="guaranteed uplink kbps")
    s.add_argument("--down-cap", type=int, default=0)
    s.add_argument("--up-cap", type=int, default=0)
    s.add_argument("--latency", default="best_effort", choices=["best_effort", "low", "ultra_low"])
    s.add_argument("--budget-us", type=int, metavar="US",
                   help="latency budget of the wired + MEC part, microseconds (required with --latency low/ultra_low)")
    s.add_argument("--transcode", type=transcode_arg, action="append", metavar="PER_CLIENT:BITRATE[:HOLD[:RELEASE]]",
                   help="policy: deploy a transcoder (BITRATE kbps per stream) when clients x PER_CLIENT kbps "
                        "exceed the down guarantee for HOLD s; remove it after RELEASE s within")
    s.add_argument("--probe", type=probe_arg, metavar="SOURCE_IP,TARGET_IP[,INTERVAL_MS]",
                   help="latency slices: probe the path from SOURCE_IP (a free address in your station subnet) to "
                        "TARGET_IP (your first vNF or a server behind it); show then prints p50/p99 vs the budget")
    s.add_argument("--handover-policy", default="best_effort", choices=HANDOVER_POLICIES,
                   help="a station that roams into an AP whose radio cannot hold the guarantee: kept, or steered back")
    s.add_argument("--idempotency-key")
    s.add_argument("--no-wait", action="store_true", help="return the operation at once")
    s.set_defaults(run=cmd_slices)

    one = sub.add_parser("slice", help="change one slice (tenants: their own; operators: any)")
    one_sub = one.add_subparsers(dest="action", required=True)
    up = one_sub.add_parser("update", help="change a live slice's bandwidth (options not given stay as they are) "
                                           "and/or latency class; re-admitted, 409 with the reasons if it does not fit")
    up.add_argument("tenant", type=int)
    up.add_argument("slice", type=int)
    for way in ("down", "up"):
        up.add_argument(f"--{way}-guaranteed", type=int, metavar="KBPS", help=f"guaranteed {way}link kbps")
        up.add_argument(f"--{way}-cap", type=int, metavar="KBPS", help=f"{way}link cap kbps (0 = uncapped)")
    up.add_argument("--latency-class", choices=["best_effort", "low", "ultra_low"])
    up.add_argument("--budget-us", type=int, metavar="US", help="new latency budget in microseconds (a latency class "
                                                                "keeps its current one unless given)")
    up.add_argument("--handover-policy", choices=HANDOVER_POLICIES)
    up.add_argument("--no-wait", action="store_true", help="return the operation at once")
    up.set_defaults(run=cmd_slice)
    pol = one_sub.add_parser("policies", help="show a slice's closed-loop policies and their state, or replace them")
    pol.add_argument("tenant", type=int)
    pol.add_argument("slice", type=int)
    pol.add_argument("--transcode", type=transcode_arg, action="append", metavar="PER_CLIENT:BITRATE[:HOLD[:RELEASE]]",
                     help="a transcode_on_overload policy (repeatable); the list replaces the slice's policies")
    pol.add_argument("--clear", action="store_true", help="remove every policy")
    pol.set_defaults(run=cmd_slice)

    for what, cols in (("vaps", ["vap_id", "agent_id", "radio", "ssid", "security_mode", "state"]),
                       ("vnfs", ["vnf_id", "address", "image", "cpu", "memory_mib", "node", "state"]),
                       ("clients", ["mac", "vap_id", "agent_id", "signal_dbm", "connected_s"])):
        x = sub.add_parser(what, help=f"{what} of a slice")
        x.add_argument("slice", type=int)
        x.add_argument("--tenant", type=int)
        x.set_defaults(run=cmd_parts(what, cols))

    sub.add_parser("agents", help="WiFi agents (operators)").set_defaults(run=cmd_agents)
    sub.add_parser("mec", help="MEC agents (operators)").set_defaults(run=cmd_mec)
    ch = sub.add_parser("channel", help="move a radio to a channel (operators)")
    ch.add_argument("agent")
    ch.add_argument("radio")
    ch.add_argument("channel", type=int)
    ch.set_defaults(run=cmd_channel)
    k = sub.add_parser("kick", help="disassociate a client (operators)")
    k.add_argument("agent")
    k.add_argument("mac")
    k.set_defaults(run=cmd_kick)
    cli_clients.add_parsers(sub)
    cli_firmware.add_parsers(sub)
    o = sub.add_parser("op", help="an operation and its steps")
    o.add_argument("id", type=int)
    o.add_argument("--wait", action="store_true")
    o.set_defaults(run=cmd_op)
    sub.add_parser("events", help="event log (operators)").set_defaults(run=cmd_events)

    sv = sub.add_parser("serve", help="run the orchestrator (WISLICE_* settings)")
    sv.add_argument("--host", default="127.0.0.1")
    sv.add_argument("--port", type=int, default=8080)
    sv.set_defaults(local=cmd_serve)
    sub.add_parser("db-upgrade", help="apply database migrations").set_defaults(local=cmd_db_upgrade)
    pk = sub.add_parser("passphrase-key", help="rotate the passphrase key, or forget a lost one (service stopped)")
    pk.add_argument("action", choices=["rotate", "forget-lost"])
    pk.set_defaults(local=cmd_passphrase_key)
    tok = sub.add_parser("create-operator-token", help="issue an operator token into the local database")
    tok.add_argument("--name", default="operator")
    tok.add_argument("--ttl", type=int, metavar="SECONDS", help="lifetime (default: WISLICE_OPERATOR_TOKEN_TTL_S)")
    tok.set_defaults(local=cmd_create_operator_token)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if hasattr(args, "local"):
            args.local(args)
        else:
            args.run(args, Client(args.url, args.token))
    except CliError as exc:
        print(f"wislice: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
