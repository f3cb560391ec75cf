"""vnf_id, its IPv4 address and the names derived from it.

vnf_id = tenant_id << 16 | instance_id (unsigned 32 bits). The vNF's input interface carries EXACTLY the dotted
quad of those 32 bits as a /32 (tenant 1, instance 2 -> vnf_id 65538 -> 0.1.0.2/32): every vNF lives in its own
network namespace, so the addresses never collide on the node, and Linux (>= 5.3) accepts 0/8 and 240/4 host
addresses. vnf_ids whose dotted quad cannot be a unicast interface address are refused (bad_request):
0.0.0.0 (tenant 0, instance 0), 127.0.0.0/8 (tenants 0x7f00-0x7fff), 224.0.0.0/4 multicast (tenants
0xe000-0xefff) and 255.255.255.255 (tenant 0xffff, instance 0xffff).
Inside the container the interface is named ``in``, has the /32 and a default route ``dev in`` (on-link), so
the vNF answers whatever reaches it over the wire. The host side of its veth is ``<prefix><8 hex digits of
vnf_id>`` (prefix from the agent config, at most 7 characters, so the name fits IFNAMSIZ).
"""

from __future__ import annotations

import ipaddress
import re

from wislice_agent_proto.errors import bad_request

MAX_TENANT = 0xFFFF
MAX_INSTANCE = 0xFFFF
CONTAINER_IFNAME = "in"
CONTAINER_PREFIX = "wv-"
_PREFIX_RE = re.compile(r"^[a-z][a-z0-9]{0,6}$")


def vnf_id_of(tenant_id: int, instance_id: int) -> int:
    if not 0 <= tenant_id <= MAX_TENANT:
        raise bad_request(f"tenant_id {tenant_id} out of range 0-65535")
    if not 0 <= instance_id <= MAX_INSTANCE:
        raise bad_request(f"instance_id {instance_id} out of range 0-65535")
    return tenant_id << 16 | instance_id


def split_vnf_id(vnf_id: int) -> tuple[int, int]:
    check_vnf_id(vnf_id)
    return vnf_id >> 16, vnf_id & 0xFFFF


def check_vnf_id(vnf_id: object) -> int:
    if isinstance(vnf_id, bool) or not isinstance(vnf_id, int) or not 0 <= vnf_id <= 0xFFFFFFFF:
        raise bad_request(f"vnf_id must be an integer 0-4294967295, got {vnf_id!r}")
    return vnf_id


def address_of(vnf_id: int) -> str:
    """The dotted quad of vnf_id (the protocol's ``address``)."""
    return str(ipaddress.IPv4Address(check_vnf_id(vnf_id)))


def mac_of(vnf_id: int) -> str:
    """The MAC of the vNF's ``in``: locally administered 02:00 + the 32 bits of vnf_id, so a vNF rebuilt after a
    restart answers with the MAC its peers have cached."""
    b = check_vnf_id(vnf_id).to_bytes(4, "big")
    return "02:00:" + ":".join(f"{x:02x}" for x in b)


def check_assignable(vnf_id: int) -> None:
    """Refuse vnf_ids whose dotted quad cannot be a unicast interface address (see the module docstring)."""
    addr = ipaddress.IPv4Address(vnf_id)
    if vnf_id == 0 or addr.is_loopback or addr.is_multicast or vnf_id == 0xFFFFFFFF:
        raise bad_request(f"vnf_id {vnf_id} maps to {addr}, which cannot be a unicast interface address")


def check_prefix(prefix: str) -> str:
    if not _PREFIX_RE.match(prefix):
        raise ValueError(f"veth prefix {prefix!r} must be 1-7 lowercase letters/digits starting with a letter")
    return prefix


def host_ifname(prefix: str, vnf_id: int) -> str:
    return f"{prefix}{vnf_id:08x}"


def host_ifnames(prefix: str, vnf_id: int, count: int) -> list[str]:
    """The host sides of a kernel vNF's veths (also its switch port names): host_ifname, then with 1, 2, ...
    appended for its further interfaces (which vnf_id_from_ifname does not parse, on purpose: they are not ids)."""
    first = host_ifname(prefix, vnf_id)
    return [first] + [f"{first}{k}" for k in range(1, count)]


def vnf_id_from_ifname(prefix: str, ifname: str) -> int | None:
    rest = ifname[len(prefix):] if ifname.startswith(prefix) else ""
    return int(rest, 16) if re.fullmatch(r"[0-9a-f]{8}", rest) else None


def container_name(agent_id: str, vnf_id: int) -> str:
    return f"{CONTAINER_PREFIX}{agent_id.replace(':', '_')}-{vnf_id}"
