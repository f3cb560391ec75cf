"""Command server inside the AP VM: JSON lines over the virtio-serial port ``wislice.cmd``.

Requests (one JSON object per line, ``id`` chosen by the host):
  {"id": 1, "op": "run", "cmd": "shell command", "timeout": 30}  -> {"id": 1, "rc": 0, "out": "...", "err": "..."}
  {"id": 2, "op": "spawn", "cmd": "shell command", "log": "/tmp/x.log"}  -> {"id": 2, "pid": 123}
  {"id": 3, "op": "ping"}  -> {"id": 3, "pong": true, "uptime": 5.2}
  {"id": 4, "op": "poweroff"}  -> {"id": 4, "ok": true}, then the VM powers off
Each request runs in its own thread so a slow command does not hold up the others.
"""

import json
import os
import subprocess
import sys
import threading
import time

PORT_NAME = "wislice.cmd"


def find_port():
    base = "/sys/class/virtio-ports"
    for _ in range(100):
        if os.path.isdir(base):
            for entry in os.listdir(base):
                try:
                    with open(os.path.join(base, entry, "name")) as f:
                        if f.read().strip() == PORT_NAME:
                            return "/dev/" + entry
                except OSError:
                    continue
        time.sleep(0.1)
    raise SystemExit("guestd: no virtio port named " + PORT_NAME)


class Server:
    def __init__(self, path):
        self.fd = os.open(path, os.O_RDWR)
        self.write_lock = threading.Lock()

    def send(self, obj):
        data = (json.dumps(obj) + "\n").encode()
        with self.write_lock:
            view = memoryview(data)
            while view:
                n = os.write(self.fd, view)
                view = view[n:]

    def lines(self):
        buf = b""
        while True:
            chunk = os.read(self.fd, 65536)
            if not chunk:  # host not connected: the port reads as closed until it is
                time.sleep(0.05)
                continue
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                if line.strip():
                    yield line

    def handle(self, req):
        rid = req.get("id")
        op = req.get("op")
        try:
            if op == "ping":
                with open("/proc/uptime") as f:
                    self.send({"id": rid, "pong": True, "uptime": float(f.read().split()[0])})
            elif op == "run":
                self.send({"id": rid, **run(req["cmd"], float(req.get("timeout", 60)))})
            elif op == "spawn":
                self.send({"id": rid, "pid": spawn(req["cmd"], req.get("log", "/dev/null"))})
            elif op == "poweroff":
                self.send({"id": rid, "ok": True})
                time.sleep(0.2)
                os.sync()
                os.execv("/bin/busybox", ["poweroff", "-f"])
            else:
                self.send({"id": rid, "error": f"unknown op {op!r}"})
        except Exception as exc:  # one bad request must not stop the server
            self.send({"id": rid, "error": f"{type(exc).__name__}: {exc}"})

    def serve(self):
        for line in self.lines():
            try:
                req = json.loads(line)
            except ValueError:
                self.send({"id": None, "error": "bad json"})
                continue
            threading.Thread(target=self.handle, args=(req,), daemon=True).start()


def run(cmd, timeout):
    try:
        res = subprocess.run(["/bin/sh", "-c", cmd], capture_output=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as exc:
        return {"rc": -1, "out": (exc.stdout or b"").decode(errors="replace"),
                "err": f"timeout after {timeout} s"}
    return {"rc": res.returncode, "out": res.stdout.decode(errors="replace"),
            "err": res.stderr.decode(errors="replace")}


def spawn(cmd, log):
    with open(log, "ab") as out:
        proc = subprocess.Popen(["/bin/sh", "-c", "exec " + cmd], stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
    threading.Thread(target=proc.wait, daemon=True).start()  # reap it when it ends
    return proc.pid


def main():
    server = Server(find_port())
    print("guestd: serving on", PORT_NAME, flush=True)
    server.serve()


if __name__ == "__main__":
    sys.exit(main())
