"""Catalog images that do more than forward: the ffmpeg transcoder lowers a real stream's bitrate."""

from __future__ import annotations

import subprocess
import time

import pytest

from .conftest import NODE_ADDRESS, RealNode

pytestmark = pytest.mark.integration


def test_transcoder_reencodes_a_stream_at_a_lower_bitrate(real_node: RealNode, tmp_path) -> None:
    state = real_node.manager.create({"tenant_id": 4, "instance_id": 1, "image": "transcoder", "cpu": 1.0,
                                      "memory_mib": 256, "chain_position": 0,
                                      "params": {"in_port": 5000, "out_addr": NODE_ADDRESS, "out_port": 5001,
                                                 "bitrate_kbps": 200}})
    real_node.ns.exec(["ip", "route", "add", f"{state['address']}/32", "dev", state["ports"][0]["name"]])
    out = tmp_path / "out.ts"
    recv = subprocess.Popen(["ip", "netns", "exec", real_node.ns.name, "ffmpeg", "-nostdin", "-loglevel", "error",
                             "-y", "-i", "udp://0.0.0.0:5001?timeout=8000000", "-c", "copy", "-t", "3", str(out)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        time.sleep(0.5)
        # 4 Mbit/s test pattern in, the vNF re-encodes it at 200 kbit/s.
        real_node.ns.exec(["ffmpeg", "-nostdin", "-loglevel", "error", "-re", "-f", "lavfi", "-i",
                           "testsrc=size=640x360:rate=25", "-t", "6", "-c:v", "mpeg2video", "-b:v", "4M",
                           "-f", "mpegts", f"udp://{state['address']}:5000?pkt_size=1316"], timeout=30)
        recv.wait(20)
    finally:
        if recv.poll() is None:
            recv.kill()
            recv.wait()
        recv.stderr.close()
    assert out.exists() and out.stat().st_size > 10_000, "no transcoded stream came back"
    probe = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=bit_rate,duration", "-of",
                            "default=nw=1", str(out)], capture_output=True, text=True, check=True).stdout
    fields = dict(line.split("=", 1) for line in probe.split())
    assert float(fields["bit_rate"]) < 1_000_000, probe  # well under the 4 Mbit/s that went in
    real_node.manager.delete(state["vnf_id"])
    assert not any(real_node.holdings().values())


def test_transcoder_in_the_wire_reencodes_streams_and_passes_the_rest(real_node: RealNode, netns, veth,
                                                                      tmp_path) -> None:
    """The transcoder between a client and a server network (its ports 'in' and 'out', each bridged in the node to
    one side, as the MEC switch's slice path would carry them): ping crosses it untouched; a 3 Mbit/s H.264 stream
    from the server to the client (a keyframe every second, as live streams have: the transcoder joins mid-stream)
    arrives as MPEG-2 at about bitrate_kbps."""
    state = real_node.manager.create({"tenant_id": 4, "instance_id": 2, "image": "transcoder", "cpu": 1.0,
                                      "memory_mib": 256, "chain_position": 0,
                                      "params": {"bridge_address": "10.77.1.250/24", "bitrate_kbps": 500}})
    port_in, port_out = (p["name"] for p in state["ports"])
    # Both ends of each veth send frames as on the wire (a switch's AF_PACKET port would forward an unfinished
    # checksum as is, and the client would drop the transcoded datagrams).
    pid = real_node.runtime.inspect(real_node.manager.store.get(state["vnf_id"]).container_id).pid
    for where, ifname in ((["ip", "netns", "exec", real_node.ns.name], port_in),
                          (["ip", "netns", "exec", real_node.ns.name], port_out),
                          (["nsenter", "-t", str(pid), "-n"], "in"), (["nsenter", "-t", str(pid), "-n"], "out")):
        features = subprocess.run([*where, "ethtool", "-k", ifname], capture_output=True, text=True,
                                  check=True).stdout
        assert "tx-checksumming: off" in features and "generic-segmentation-offload: off" in features, features
    client, server = netns("cli"), netns("srv")
    for side, port, ns, addr in (("c", port_in, client, "10.77.1.10/24"), ("s", port_out, server, "10.77.1.2/24")):
        pair = veth(real_node.ns, ns, addr_b=addr)
        real_node.ns.exec(["ip", "link", "add", f"br{side}", "type", "bridge"])
        for ifname in (port, pair.a):
            real_node.ns.exec(["ip", "link", "set", ifname, "master", f"br{side}"])
        real_node.ns.exec(["ip", "link", "set", f"br{side}", "up"])
    ping = server.exec(["ping", "-c", "3", "-i", "0.2", "-W", "3", "10.77.1.10"], check=False)
    assert ping.returncode == 0, ping.stdout
    out = tmp_path / "rx.ts"
    recv = subprocess.Popen(client.argv(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-i",
                                         "udp://0.0.0.0:5004?timeout=10000000", "-c", "copy", "-t", "4", str(out)]),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        time.sleep(0.5)
        server.exec(["ffmpeg", "-nostdin", "-loglevel", "error", "-re", "-f", "lavfi", "-i",
                     "testsrc2=size=640x360:rate=25", "-t", "8", "-c:v", "libx264", "-preset", "veryfast",
                     "-g", "25", "-b:v", "3M", "-f", "mpegts", "udp://10.77.1.10:5004?pkt_size=1316"], timeout=40)
        recv.wait(25)
    finally:
        if recv.poll() is None:
            recv.kill()
            recv.wait()
        recv.stderr.close()
    vnf_dir = real_node.manager.vnf_dir(state["vnf_id"])
    container = real_node.runtime.client.containers.get(real_node.manager.store.get(state["vnf_id"]).container_id)
    seen = "\n".join(f"{f.name}:\n{f.read_text()}" for f in vnf_dir.glob("*.txt")) + "\n".join(
        f.read_text() for f in vnf_dir.glob("*.log")) + container.logs().decode(errors="replace")
    assert out.exists() and out.stat().st_size > 10_000, f"no transcoded stream reached the client:\n{seen}"
    probe = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "stream=codec_name:format=bit_rate", "-of",
                            "default=nw=1", str(out)], capture_output=True, text=True, check=True).stdout
    fields = dict(line.split("=", 1) for line in probe.split())
    assert fields["codec_name"] == "mpeg2video", probe
    assert 200_000 < float(fields["bit_rate"]) < 1_000_000, probe  # 500 kbit/s (x1.1 mux), not the 3 Mbit/s sent
    real_node.manager.delete(state["vnf_id"])
    for side in ("c", "s"):
        real_node.ns.exec(["ip", "link", "del", f"br{side}"])
    assert not any(real_node.holdings().values())
