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
