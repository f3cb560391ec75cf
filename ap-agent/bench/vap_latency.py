"""vap-latency: createVap / delVap through the agent vs hostapd's own ADD / REMOVE, on the same hostapd, same run.

Agent time = from the request line received (decode, validate, render, write, ADD, STATUS says ENABLED, reply
encoded) to the reply being ready: the BSS is up (beaconing) when createVap answers, gone when delVap answers.
Raw time = the ADD (or REMOVE) round trip on the global control socket with a config rendered the same way.
The two alternate, N times each, on the same slot, so CPU noise hits both alike.

Modes:
  in the AP VM (real radio, nl80211):
      python3 vap_latency.py --global /var/run/hostapd-global --radio phy0 --iface wlan0 \
          --ctrl-dir /var/run/hostapd --json-out /mnt/results/vap-latency.raw.json
    then on the host: python3 ap-agent/bench/vap_latency.py --publish /path/vap-latency.raw.json
    (or, when bench/benchlib.py is importable in the VM, omit --json-out: results go to bench/results/)
  on this host without a radio (hostapd driver=wired on veths in a private namespace; root needed):
      python3 vap_latency.py --host-wired          -> bench/results/vap-latency-host-wired.json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = Path(os.environ.get("WISLICE_ROOT", HERE.parents[1]))
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE.parents[1] / "agent-proto" / "src"))  # the protocol package, laid out as in the repo

from wislice_agent_proto import protocol  # noqa: E402

from wislice_ap_agent import bssconf, config  # noqa: E402
from wislice_ap_agent.agent import Agent  # noqa: E402
from wislice_ap_agent.hostapd_ctrl import CtrlConnection, CtrlError, HostapdControl  # noqa: E402
from wislice_ap_agent.shaping import NullShaper  # noqa: E402

UNITS = {"create_p50_ms": "ms", "create_p99_ms": "ms", "remove_p50_ms": "ms", "remove_p99_ms": "ms",
         "hostapd_add_p50_ms": "ms", "hostapd_remove_p50_ms": "ms", "create_over_add_ratio": "x",
         "remove_over_remove_ratio": "x"}


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[max(1, -(-int(pct * len(ordered)) // 100)) - 1]


def spec(i: int, radio: str) -> dict:
    return {"vap_id": f"bench-{i}", "radio": radio, "ssid": f"bench {i}", "security": {"mode": "wpa2-psk",
            "passphrase": "benchmark-pass"}, "tenant_id": 1, "slice_id": "bench",
            "rate_limit": {"down_kbps": 0, "up_kbps": 0}}


def timed_request(agent: Agent, rid: int, method: str, params: dict) -> float:
    line = protocol.encode(protocol.request(rid, method, params))[:-1]
    t0 = time.perf_counter()
    msg = protocol.decode(line)
    reply = agent.serve(msg)  # validates, then the handler
    protocol.encode(reply)
    elapsed = (time.perf_counter() - t0) * 1000
    if not reply["ok"]:
        raise RuntimeError(f"{method} failed: {reply['error']}")
    return elapsed


def measure(global_path: str, radio_cfg: dict, ctrl_dir: str, ops: int, workdir: Path) -> dict:
    cfg = config.from_dict({"agent_id": "bench", "controller": "127.0.0.1:9", "hostapd_global": global_path,
                            "hostapd_ctrl_dir": ctrl_dir, "conf_dir": str(workdir / "conf"),
                            "client_dir": str(workdir), "shaping": "none", "radios": [radio_cfg]})
    agent = Agent(cfg, shaper=NullShaper())
    raw = HostapdControl(global_path, str(workdir))
    radio = agent.vaps.radios[radio_cfg["name"]]
    ifname = bssconf.vap_ifname(radio.iface, 1)
    raw_conf = workdir / "raw.conf"
    create, remove, add_rt, remove_rt = [], [], [], []
    try:
        for i in range(ops):
            raw_conf.write_text(bssconf.render(spec(i, radio.name), radio, ifname,
                                               bssconf.derive_bssid(radio.mac, 1), ctrl_dir))
            t0 = time.perf_counter()
            if radio.driver == "wired":
                raw.add_interface(ifname, str(raw_conf))
                raw.raw("ENABLE", ifname)
            else:
                raw.add_bss(radio.name, str(raw_conf))
            add_rt.append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()
            raw.remove(ifname)
            remove_rt.append((time.perf_counter() - t0) * 1000)
            create.append(timed_request(agent, 2 * i + 1, "createVap", {"vap": spec(i, radio.name)}))
            remove.append(timed_request(agent, 2 * i + 2, "delVap", {"vap_id": f"bench-{i}"}))
            agent._drain_hostapd()  # keep the event socket from filling up, as the agent's loop would
    finally:
        raw.close()
        agent.close()
    metrics = {"create_p50_ms": percentile(create, 50), "create_p99_ms": percentile(create, 99),
               "remove_p50_ms": percentile(remove, 50), "remove_p99_ms": percentile(remove, 99),
               "hostapd_add_p50_ms": percentile(add_rt, 50), "hostapd_remove_p50_ms": percentile(remove_rt, 50)}
    metrics["create_over_add_ratio"] = metrics["create_p50_ms"] / metrics["hostapd_add_p50_ms"]
    metrics["remove_over_remove_ratio"] = metrics["remove_p50_ms"] / metrics["hostapd_remove_p50_ms"]
    return {k: round(v, 3) for k, v in metrics.items()}


def publish(name: str, metrics: dict, notes: str) -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        from benchlib import print_table, write_result
    except ImportError:
        raise SystemExit(f"bench/benchlib.py not found under {ROOT}: use --json-out here and --publish on the host "
                         f"(metrics: {json.dumps(metrics)})") from None

    reference = {"ade2winfv_create_ms": 30.0, "ade2winfv_remove_ms": 100.0}
    path = write_result(name, metrics, {k: UNITS[k] for k in metrics}, reference, notes)
    print_table(name, metrics, UNITS, reference)
    print(f"wrote {path}")


def host_wired(ops: int) -> tuple[dict, str]:
    """A private namespace with veths and hostapd driver=wired (this host has no radio); all removed after."""
    if os.geteuid() != 0 or shutil.which("hostapd") is None:
        raise SystemExit("--host-wired needs root and hostapd (ap-agent/deps/apt.txt)")
    ns = f"wsbench{uuid.uuid4().hex[:6]}"
    workdir = Path(tempfile.mkdtemp(prefix="apbench"))
    proc = None
    subprocess.run(["ip", "netns", "add", ns], check=True)
    try:
        for dev in ("apb0", "apb0_1"):
            subprocess.run(["ip", "-n", ns, "link", "add", dev, "type", "veth", "peer", "name", f"{dev}p"], check=True)
            for d in (dev, f"{dev}p"):
                subprocess.run(["ip", "-n", ns, "link", "set", d, "up"], check=True)
        conf = workdir / "primary.conf"
        conf.write_text(f"interface=apb0\ndriver=wired\nctrl_interface={workdir}/ctrl\nssid=p\nhw_mode=g\n"
                        "channel=6\nieee8021x=1\neap_server=1\n")
        global_path = str(workdir / "global")
        proc = subprocess.Popen(["ip", "netns", "exec", ns, "hostapd", "-g", global_path, str(conf)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while not Path(global_path).exists():
            if time.monotonic() > deadline or proc.poll() is not None:
                raise SystemExit("hostapd did not start")
            time.sleep(0.05)
        CtrlConnection(global_path, str(workdir)).close()
        radio = {"name": "phy0", "iface": "apb0", "driver": "wired", "mac": "02:00:00:00:00:00", "channel": 6,
                 "hw_mode": "g", "max_vaps": 2}
        metrics = measure(global_path, radio, f"{workdir}/ctrl", ops, workdir)
    finally:
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        subprocess.run(["ip", "netns", "del", ns], check=False)
        shutil.rmtree(workdir, ignore_errors=True)
    notes = (f"{ops} create/delete pairs per side, alternating; hostapd 2.10 driver=wired on veths (no radio on this "
             "host: ADD+ENABLE of a wired interface, not a BSS on a phy). Agent = request line -> validated -> "
             "rendered -> ADD -> STATUS ENABLED -> reply encoded; raw = ADD(+ENABLE)/REMOVE round trip. WPA2-PSK "
             "vAPs, no caps, no pof-switch. Real-radio numbers: run the same script in the AP VM.")
    return metrics, notes


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--global", dest="global_path", help="hostapd global control socket")
    p.add_argument("--radio", default="phy0")
    p.add_argument("--iface", default="wlan0", help="the radio's primary BSS netdev")
    p.add_argument("--ctrl-dir", default="/var/run/hostapd")
    p.add_argument("--ops", type=int, default=50)
    p.add_argument("--name", default="vap-latency")
    p.add_argument("--json-out", help="write the raw metrics here instead of bench/results (e.g. inside the VM)")
    p.add_argument("--publish", help="turn a --json-out file into bench/results/<name>.json via benchlib")
    p.add_argument("--host-wired", action="store_true", help="run on this host with hostapd driver=wired")
    args = p.parse_args(argv)
    if args.publish:
        raw = json.loads(Path(args.publish).read_text())
        publish(raw["name"], raw["metrics"], raw["notes"])
        return 0
    if args.host_wired:
        metrics, notes = host_wired(args.ops)
        publish("vap-latency-host-wired", metrics, notes)
        return 0
    if not args.global_path:
        print("vap-latency needs a multi-BSS hostapd (the AP VM): pass --global PATH inside the VM, "
              "or --host-wired for the radio-less host variant", file=sys.stderr)
        return 2
    workdir = Path(tempfile.mkdtemp(prefix="apbench"))
    try:
        radio = {"name": args.radio, "iface": args.iface, "max_vaps": 2}
        metrics = measure(args.global_path, radio, args.ctrl_dir, args.ops, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    notes = (f"{args.ops} create/delete pairs per side, alternating, in the AP VM (qemu TCG, mac80211_hwsim, "
             "hostapd 2.10 nl80211). Agent = request line -> validated -> rendered -> ADD bss_config -> STATUS "
             "ENABLED (beaconing) -> reply encoded; raw = ADD/REMOVE round trip. WPA2-PSK vAPs, no caps.")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps({"name": args.name, "metrics": metrics, "notes": notes}))
        print(json.dumps(metrics))
    else:
        publish(args.name, metrics, notes)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except CtrlError as e:
        print(f"vap-latency: {e}", file=sys.stderr)
        sys.exit(1)
