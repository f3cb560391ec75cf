"""CLI commands about one client (operators): ``client steer``. Kept beside cli.py, which holds the others."""

from __future__ import annotations

import argparse
import json
from typing import Any

from .cli_base import CliError


def cmd_steer(a: argparse.Namespace, c: Any) -> None:
    if not (a.to_vap or a.to_bssid or a.to_agent):
        raise CliError("give --to-vap, --to-bssid or --to-agent")
    body: dict[str, Any] = {"target_bssid": a.to_bssid} if a.to_bssid else {"target_vap": a.to_vap} if a.to_vap else {}
    if a.to_agent:
        body["target_agent"] = a.to_agent
    if a.disassoc_timer is not None:
        body["disassoc_timer_tbtt"] = a.disassoc_timer
    r = c.call("POST", f"/clients/{a.mac}/steer", body)
    if a.json:
        print(json.dumps(r, indent=2, sort_keys=True))
        return
    verdict = "accepted" if r["accepted"] else f"not accepted: {r['reason']}"
    print(f"{r['mac']}: {r['agent_id']}/{r['vap_id']} -> {r['target_agent_id']}/{r['target_vap_id']} "
          f"({r['target_bssid']}): {verdict}")


def add_parsers(sub: Any) -> None:
    cl = sub.add_parser("client", help="one client (operators)")
    actions = cl.add_subparsers(dest="client_action", required=True)
    st = actions.add_parser("steer", help="steer a client to another vAP or BSS (802.11v BSS Transition Management)")
    st.add_argument("mac")
    to = st.add_mutually_exclusive_group()
    to.add_argument("--to-vap", help="the target vAP's vap_id")
    to.add_argument("--to-bssid", help="the target BSS")
    st.add_argument("--to-agent", help="the agent of --to-vap; alone: that AP's vAP of the client's SSID")
    st.add_argument("--disassoc-timer", type=int, metavar="TBTT",
                    help="Disassociation Imminent: disassociate after this many beacon intervals")
    st.set_defaults(run=cmd_steer)
