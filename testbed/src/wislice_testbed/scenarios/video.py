"""Real video for the demo's Fig. 10/11 replay: ffmpeg streams a constant-bitrate MPEG-TS clip over UDP from the
server namespace to a station; a small UDP sink in the station (in the AP VM) keeps what arrives and counts it per
second; Y-PSNR of the received stream against the uncompressed source (ffmpeg's psnr filter) says what a viewer saw.

The clip is ffmpeg's testsrc2 pattern encoded once (H.264, CBR, muxed at the stream's rate) and cached; the PSNR
reference is the same pattern generated again, so a perfectly received stream scores its encoding's PSNR and every
lost packet lowers it.
"""

from __future__ import annotations

import json
import re
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wislice_testbed.topology.common import cache_dir

from .traffic import START_LINE_LIMIT_S, Series, StartLine, guest_clock_offset, next_port, start_in_station

SIZE, FPS = "640x360", 25
DRAIN_S = 3.0  # after the sender's last packet, what the station still receives from the queues on its path
# Runs in the station's namespace inside the VM (python3 is there): keeps the datagrams, counts bytes per second,
# until SIGTERM (the host's, once the stream has drained) or its time limit.
# The stream goes to the guest's tmpfs while it runs and to the share (9p, slow and blocking in a busy TCG guest)
# only at the end: a sink stalled in a share write for seconds read nothing meanwhile, and its per-second rates
# showed gaps and bursts the network never had. SO_RCVBUFFORCE (root) lifts rmem_max for the same reason.
SINK = r'''
import json, shutil, signal, socket, sys, time
port, seconds, out = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
stop = []
signal.signal(signal.SIGTERM, lambda *a: stop.append(1))
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    s.setsockopt(socket.SOL_SOCKET, 33, 1 << 22)  # SO_RCVBUFFORCE
except OSError:
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
s.bind(("0.0.0.0", port))
s.settimeout(0.2)
start = time.time(); per_s = {}
boot = time.clock_gettime(time.CLOCK_BOOTTIME)  # = /proc/uptime, the clock the host maps (traffic.py)
print("ready", flush=True)
local = "/tmp/sink-" + out.rsplit("/", 1)[-1] + ".ts"
with open(local, "wb") as f:
    while not stop and time.time() - start < seconds:
        try:
            data = s.recv(65536)
        except socket.timeout:
            continue
        f.write(data)
        k = int(time.time() - start)
        per_s[k] = per_s.get(k, 0) + len(data)
shutil.move(local, out + ".ts")
json.dump({"bytes_per_s": per_s, "started_boottime": boot}, open(out + ".json", "w"))
'''


@dataclass(frozen=True)
class Clip:
    path: Path
    kbps: int
    seconds: int


def clip(kbps: int, seconds: int) -> Clip:
    """The source clip at `kbps` (TS mux rate; the video inside at 90 % of it), cached by its parameters."""
    path = cache_dir() / "video" / f"testsrc2-{SIZE}-{kbps}k-{seconds}s.ts"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        v = int(kbps * 0.9)
        subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                        f"testsrc2=size={SIZE}:rate={FPS}:duration={seconds}", "-c:v", "libx264", "-preset",
                        "veryfast", "-g", str(FPS), "-b:v", f"{v}k", "-minrate", f"{v}k", "-maxrate", f"{v}k",
                        "-bufsize", f"{v // 2}k", "-x264-params", "nal-hrd=cbr", "-muxrate", f"{kbps}k",
                        "-f", "mpegts", str(path) + ".part"], check=True, timeout=600)
        Path(str(path) + ".part").rename(path)
    return Clip(path, kbps, seconds)


@dataclass
class VideoFlow:
    """One client's video: ffmpeg in the server namespace -> UDP -> the sink in the station."""

    name: str
    station: Any
    station_addr: str
    clip: Clip
    start_s: float = 0.0

    def run(self, tb: Any, start: StartLine) -> Series:
        series = Series(self.name)
        port = next_port()
        share = tb.ap.vm.share
        out = f"/mnt/share/{self.name}"
        # The sink starts now and is stopped once the stream drained; its own limit only guards a lost host.
        listen = START_LINE_LIMIT_S + self.start_s + self.clip.seconds + 30
        offset = guest_clock_offset(tb.ap.vm)
        # The sender starts once the sink listens.
        sink = start_in_station(self.station, "udp_sink.py", SINK, f"{port} {listen} {out}",
                                log=f"/tmp/{self.name}-{port}-sink.log", ready=True)
        t0 = start.wait()
        delay = t0 + self.start_s - time.time()
        if delay > 0:
            time.sleep(delay)
        launched = time.time() - t0
        sender = tb.processes.start(tb.server.argv([
            "ffmpeg", "-nostdin", "-loglevel", "error", "-re", "-i", str(self.clip.path), "-c", "copy",
            "-muxrate", f"{self.clip.kbps}k", "-f", "mpegts", f"udp://{self.station_addr}:{port}?pkt_size=1316"]),
            log_name=f"ffmpeg-{self.name}")
        try:
            sender.wait(timeout=self.clip.seconds + 30)
        except subprocess.TimeoutExpired:
            series.error = "ffmpeg did not finish"
        finally:
            tb.processes.stop(sender)
        time.sleep(DRAIN_S)
        tb.ap.vm.run(f"kill {sink}", check=False)
        tb.ap.vm.wait_for(f"! kill -0 {sink} 2>/dev/null", timeout=30)
        try:
            report = json.loads((share / f"{self.name}.json").read_text())
        except (OSError, ValueError) as exc:
            series.error = f"the sink wrote no report: {exc}"
            return series
        # The sink counts seconds from its own start, on the guest's clock mapped to the host's; the series covers
        # the seconds the sender ran. (Not from the first second with data: a station that joins after its
        # stream started receives its first data late.)
        sink_started = offset + float(report["started_boottime"]) - t0
        per_s = {int(k): v for k, v in report["bytes_per_s"].items()}
        first = int(max(0.0, launched - sink_started))
        series.points = [(sink_started + first + k + 1.0, per_s.get(first + k, 0) * 8 / 1e6)
                         for k in range(self.clip.seconds)]
        return series

    def received(self, tb: Any) -> Path:
        return tb.ap.vm.share / f"{self.name}.ts"


def y_psnr(received: Path, clip_: Clip) -> float:
    """Mean Y-PSNR (dB) of the received stream against the uncompressed source pattern; 0.0 if nothing decodes."""
    ref = f"testsrc2=size={SIZE}:rate={FPS}:duration={clip_.seconds}"
    proc = subprocess.run(["ffmpeg", "-nostdin", "-hide_banner", "-err_detect", "ignore_err", "-i", str(received),
                           "-f", "lavfi", "-i", ref, "-lavfi",
                           "[0:v]setpts=PTS-STARTPTS[r];[1:v]setpts=PTS-STARTPTS[s];[r][s]psnr", "-f", "null", "-"],
                          capture_output=True, text=True, timeout=600)
    found = re.findall(r"PSNR y:([0-9.]+|inf)", proc.stderr)
    if not found:
        return 0.0
    return 99.0 if found[-1] == "inf" else float(found[-1])
