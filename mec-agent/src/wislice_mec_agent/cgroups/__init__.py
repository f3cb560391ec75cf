"""cgroups for the agent (scheduler weights, vNF statistics), v1 and v2 behind one interface (``CgroupFs``),
chosen once at start by ``detect()`` / ``host()``. Nothing else in the agent names a cgroup file."""

from .base import (
    CGROUP_ROOT,
    CPU,
    CPU_USAGE,
    MAX,
    MEMORY,
    SCHEDULER_NEEDS,
    Cgroup,
    CgroupFs,
    CpuMax,
    Hierarchy,
    Limit,
    NoCgroupFs,
    Throttling,
    parse_flat_keyed,
    shares_to_weight,
    weight_to_shares,
)
from .detect import MountEntry, detect, host, parse_mountinfo
from .v1 import CgroupV1
from .v2 import CgroupV2

__all__ = [
    "CGROUP_ROOT", "CPU", "CPU_USAGE", "MAX", "MEMORY", "SCHEDULER_NEEDS", "Cgroup", "CgroupFs", "CgroupV1",
    "CgroupV2", "CpuMax", "Hierarchy", "Limit", "MountEntry", "NoCgroupFs", "Throttling", "detect", "host",
    "parse_flat_keyed", "parse_mountinfo", "shares_to_weight", "weight_to_shares",
]
