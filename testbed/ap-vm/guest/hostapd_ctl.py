"""Send one command to a hostapd control socket inside the AP VM and print the reply.

    python3 /opt/wislice/hostapd_ctl.py /run/hostapd-global "ADD bss_config=phy0:/run/wislice/wlan0_1.conf"

Exit status 1 when the reply is FAIL or UNKNOWN COMMAND, 2 on a socket error.
"""

import os
import socket
import sys


def request(path, cmd, timeout=10.0):
    local = f"/tmp/hostapd_ctl-{os.getpid()}"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    try:
        sock.bind(local)
        sock.settimeout(timeout)
        sock.connect(path)
        sock.send(cmd.encode())
        return sock.recv(65536).decode(errors="replace")
    finally:
        sock.close()
        os.unlink(local)


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        reply = request(argv[1], argv[2])
    except OSError as exc:
        print(f"hostapd_ctl: {argv[1]}: {exc}", file=sys.stderr)
        return 2
    print(reply.rstrip("\n"))
    return 1 if reply.startswith(("FAIL", "UNKNOWN COMMAND")) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
