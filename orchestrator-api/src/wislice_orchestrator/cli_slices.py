"""`wislice slices` (list, show, create, rm, stats of a tenant's slices) and `wislice slice` (update, policies of one
slice): their commands and their parsers. Kept beside cli.py, which holds the others."""

from __future__ import annotations

import argparse
import time
from typing import Any

from .cli_base import CliError, show, tenant_id
from .cli_slice_args import latency_lines, probe_arg, transcode_arg, vap_arg, vnf_arg
from .schemas.slices import HANDOVER_POLICIES


def cmd_slices(a, c):
    t = tenant_id(a, c)
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
                "handover_policy": a.handover_policy, "vnf_follow": a.vnf_follow,
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
    """slice update TENANT SLICE: change a live slice's bandwidth (the options given), latency class, budget,
    handover policy and/or vNF follow;
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
    if a.vnf_follow is not None:  # absent: unchanged
        body["vnf_follow"] = a.vnf_follow
    if not body:
        raise CliError("nothing to change: give --down-guaranteed/--down-cap/--up-guaranteed/--up-cap, "
                       "--latency-class, --budget-us, --handover-policy and/or --vnf-follow/--no-vnf-follow")
    op = c.call("PATCH", f"/tenants/{a.tenant}/slices/{a.slice}", body)
    if not a.no_wait:
        op = c.wait(op)
    show(a, op, None, ["operation_id", "slice_id", "status", "progress", "error"])
    if op["status"] == "failed":
        raise CliError(f"slice change failed (old rates restored): {op['error']}")


def add_parsers(sub: Any) -> None:
    s = sub.add_parser("slices", help="slices of a tenant")
    s.add_argument("action", choices=["list", "show", "create", "rm", "stats"])
    s.add_argument("slice", type=int, nargs="?")
    s.add_argument("--tenant", type=int, help="default: the token's tenant")
    s.add_argument("--name")
    s.add_argument("--vap", type=vap_arg, action="append",
                   help="AGENT[:RADIO]=SSID[:PASSPHRASE], repeatable; AGENT * = every AP with room (alone)")
    s.add_argument("--vnf", type=vnf_arg, action="append", help="IMAGE[:CPU[:MEMORY_MIB]], in chain order")
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
    s.add_argument("--vnf-follow", action="store_true",
                   help="after a handover, move the vNF chain to the MEC node nearest the AP where most of the "
                        "slice's stations are (its vNFs are recreated: a stateful vNF loses its state)")
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
    up.add_argument("--vnf-follow", action=argparse.BooleanOptionalAction,
                    help="the vNF chain follows the slice's clients after a handover, or no longer")
    up.add_argument("--no-wait", action="store_true", help="return the operation at once")
    up.set_defaults(run=cmd_slice)
    pol = one_sub.add_parser("policies", help="show a slice's closed-loop policies and their state, or replace them")
    pol.add_argument("tenant", type=int)
    pol.add_argument("slice", type=int)
    pol.add_argument("--transcode", type=transcode_arg, action="append", metavar="PER_CLIENT:BITRATE[:HOLD[:RELEASE]]",
                     help="a transcode_on_overload policy (repeatable); the list replaces the slice's policies")
    pol.add_argument("--clear", action="store_true", help="remove every policy")
    pol.set_defaults(run=cmd_slice)

