"""VnfSpec: what the controller asks for, validated field by field (spec/agent schema $defs/vnfSpec)."""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field
from typing import Any

from wislice_agent_proto.errors import bad_request
from wislice_agent_proto.validate import IDENT

from .ids import check_assignable, vnf_id_of

PARAM_NAME_RE = re.compile(r"^[A-Za-z0-9_]{1,64}$")
MAX_PARAMS = 64
MAX_PARAM_STRING = 4096
SPEC_KEYS = {"tenant_id", "instance_id", "image", "params", "cpu", "memory_mib", "chain_position", "chain_id",
             "latency_class"}
REQUIRED_KEYS = SPEC_KEYS - {"params", "chain_id", "latency_class"}
LATENCY_CLASSES = ("ultra_low", "low", "best_effort")  # the orchestrator's slice classes (spec/agent schema)
MAX_CHAIN_ID = 0xFFFFFFFF

ParamValue = str | int | float | bool


@dataclass(frozen=True)
class VnfSpec:
    tenant_id: int
    instance_id: int
    image: str
    cpu: float
    memory_mib: int
    chain_position: int
    params: dict[str, ParamValue] = field(default_factory=dict)
    chain_id: int | None = None  # the orchestrator's slice id; None from a controller that does not send it
    latency_class: str | None = None  # its slice's latency class; None from a controller that does not send it

    @property
    def vnf_id(self) -> int:
        return self.tenant_id << 16 | self.instance_id

    @property
    def chain(self) -> tuple[int, int | None]:
        """The chain the vNF is in (scheduler backpressure): its tenant's slice, or the whole tenant without one."""
        return self.tenant_id, self.chain_id

    def to_json(self) -> dict[str, Any]:
        """The wire VnfSpec: chain_id and latency_class left out when there is none (the schema has no null)."""
        out = asdict(self)
        for key in ("chain_id", "latency_class"):
            if out[key] is None:
                del out[key]
        return out


def _int(obj: dict[str, Any], key: str, lo: int, hi: int) -> int:
    value = obj[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise bad_request(f"{key} must be an integer, got {value!r}")
    if not lo <= value <= hi:
        raise bad_request(f"{key} {value} out of range {lo}-{hi}")
    return value


def _params(value: object) -> dict[str, ParamValue]:
    if not isinstance(value, dict):
        raise bad_request("params must be an object")
    if len(value) > MAX_PARAMS:
        raise bad_request(f"params has {len(value)} entries, at most {MAX_PARAMS}")
    out: dict[str, ParamValue] = {}
    for name, v in value.items():
        if not isinstance(name, str) or not PARAM_NAME_RE.match(name):
            raise bad_request(f"parameter name {name!r} must match [A-Za-z0-9_]{{1,64}}")
        if isinstance(v, str):
            if len(v) > MAX_PARAM_STRING or any(ord(c) < 0x20 or ord(c) == 0x7F for c in v):
                raise bad_request(f"parameter {name}: strings are at most {MAX_PARAM_STRING} characters, no control"
                                  " characters")
        elif isinstance(v, float):
            if not math.isfinite(v):
                raise bad_request(f"parameter {name} must be finite")
        elif not isinstance(v, bool | int):
            raise bad_request(f"parameter {name} must be a string, number or boolean, got {type(v).__name__}")
        out[name] = v
    return out


def parse_vnf_spec(obj: object) -> VnfSpec:
    """Validate a VnfSpec object from the wire; raises AgentError(bad_request) naming the first bad field."""
    if not isinstance(obj, dict):
        raise bad_request("vnf must be an object")
    unknown = set(obj) - SPEC_KEYS
    if unknown:
        raise bad_request(f"unknown VnfSpec fields: {', '.join(sorted(map(str, unknown)))}")
    missing = REQUIRED_KEYS - set(obj)
    if missing:
        raise bad_request(f"missing VnfSpec fields: {', '.join(sorted(missing))}")
    tenant_id = _int(obj, "tenant_id", 0, 0xFFFF)
    instance_id = _int(obj, "instance_id", 0, 0xFFFF)
    check_assignable(vnf_id_of(tenant_id, instance_id))
    image = obj["image"]
    if not isinstance(image, str) or not IDENT.match(image):
        raise bad_request(f"image must be a catalog name matching [A-Za-z0-9_.:-]{{1,64}}, got {image!r}")
    cpu = obj["cpu"]
    if isinstance(cpu, bool) or not isinstance(cpu, int | float) or not math.isfinite(cpu) or not 0 < cpu <= 1024:
        raise bad_request(f"cpu must be a number of cores > 0 and <= 1024, got {cpu!r}")
    memory_mib = _int(obj, "memory_mib", 1, 1048576)
    chain_position = _int(obj, "chain_position", 0, 255)
    chain_id = _int(obj, "chain_id", 1, MAX_CHAIN_ID) if "chain_id" in obj else None
    latency_class = obj.get("latency_class")
    if latency_class is not None and latency_class not in LATENCY_CLASSES:
        raise bad_request(f"latency_class must be one of {', '.join(LATENCY_CLASSES)}, got {latency_class!r}")
    if "latency_class" in obj and latency_class is None:
        raise bad_request("latency_class must be a string; leave it out for none")
    return VnfSpec(tenant_id=tenant_id, instance_id=instance_id, image=image, cpu=float(cpu), memory_mib=memory_mib,
                   chain_position=chain_position, params=_params(obj.get("params", {})), chain_id=chain_id,
                   latency_class=latency_class)
