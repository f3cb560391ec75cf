"""`wislice`: the command line for tenants and operators over the REST API, plus server-side admin commands.

Client commands read WISLICE_URL (default http://127.0.0.1:8080) and WISLICE_TOKEN; --json prints raw JSON.
Server commands (serve, db-upgrade, create-operator-token) use the WISLICE_* settings of the service itself.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from . import cli_clients, cli_firmware, cli_slices
from .cli_base import Client, CliError, show, table, tenant_id


# --- commands -------------------------------------------------------------------------------------------------
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
    base = "/operator-tokens" if a.operator else f"/tenants/{tenant_id(a, c)}/tokens"
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


def cmd_parts(what: str, columns: list[str]) -> Callable[[argparse.Namespace, Client], None]:
    def run(a, c):
        show(a, c.call("GET", f"/tenants/{tenant_id(a, c)}/slices/{a.slice}/{what}"), what, columns)
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

    cli_slices.add_parsers(sub)

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
