"""The vNF catalog (mec-agent/vnfs/catalog.json): image names, class, least resources, rootfs recipe, params."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wislice_agent_proto.errors import bad_request
from wislice_agent_proto.validate import IDENT

from .spec import ParamValue, VnfSpec
from .vnf_classes import CLASSES

VNFS_DIR = Path(__file__).resolve().parents[2] / "vnfs"
CATALOG_FILE = VNFS_DIR / "catalog.json"
PARAM_TYPES = ("string", "integer", "number", "boolean")
IFNAME_RE = re.compile(r"^[a-z][a-z0-9]{0,7}$")


@dataclass(frozen=True)
class CatalogImage:
    name: str
    vnf_class: str
    cpu: float
    memory_mib: int
    busybox: bool
    binaries: tuple[str, ...]
    extra_libs: tuple[str, ...]
    params: dict[str, str]
    # A vNF's interfaces, each a switch port: the first is 'in' (a kernel vNF's is addressed, its default route); a
    # vNF in the middle of a chain has a second, 'out' (the pof path enters on the first and leaves on the last). A
    # kernel vNF's are veths inside its container (any name); a dpdk vNF's vhost-user ports ('out' only).
    interfaces: tuple[str, ...] = ("in",)
    # Programs built from this repository (a meson project under vnfs/): path in the image -> path of the built
    # file relative to vnfs/ (e.g. dpdk-vnf: "/usr/bin/dpdk-vnf" -> "dpdk-vnf/build/dpdk-vnf").
    built: dict[str, str] = field(default_factory=dict)

    def check_params(self, params: dict[str, ParamValue]) -> None:
        for name, value in params.items():
            kind = self.params.get(name)
            if kind is None:
                known = ", ".join(sorted(self.params)) or "none"
                raise bad_request(f"image {self.name} has no parameter {name!r} (accepted: {known})")
            ok = {"string": isinstance(value, str),
                  "boolean": isinstance(value, bool),
                  "integer": isinstance(value, int) and not isinstance(value, bool),
                  "number": isinstance(value, int | float) and not isinstance(value, bool)}[kind]
            if not ok:
                raise bad_request(f"image {self.name}: parameter {name} must be a {kind}, got {value!r}")


class Catalog:
    def __init__(self, images: dict[str, CatalogImage]) -> None:
        self.images = images

    @classmethod
    def load(cls, path: Path = CATALOG_FILE) -> Catalog:
        raw = json.loads(path.read_text())
        return cls({name: _parse_image(name, body) for name, body in raw["images"].items()})

    def names(self) -> list[str]:
        return sorted(self.images)

    def get(self, name: str) -> CatalogImage:
        image = self.images.get(name)
        if image is None:
            raise bad_request(f"unknown image {name!r}: the catalog has {', '.join(self.names())}")
        return image

    def check_spec(self, spec: VnfSpec) -> CatalogImage:
        """The image exists, the request meets its least resources, and its params are ones it accepts."""
        image = self.get(spec.image)
        if spec.cpu < image.cpu:
            raise bad_request(f"image {image.name} needs at least {image.cpu} CPU, asked {spec.cpu}")
        if spec.memory_mib < image.memory_mib:
            raise bad_request(f"image {image.name} needs at least {image.memory_mib} MiB, asked {spec.memory_mib}")
        image.check_params(spec.params)
        return image


def _parse_image(name: str, body: dict[str, Any]) -> CatalogImage:
    if not IDENT.match(name):
        raise ValueError(f"catalog: bad image name {name!r}")
    if body.get("class") not in CLASSES:
        raise ValueError(f"catalog: image {name}: class must be one of {tuple(CLASSES)}")
    params = dict(body.get("params", {}))
    for pname, kind in params.items():
        if kind not in PARAM_TYPES:
            raise ValueError(f"catalog: image {name}: parameter {pname} has unknown type {kind!r}")
    rootfs = body.get("rootfs", {})
    interfaces = tuple(body.get("interfaces", ["in"]))
    if interfaces[:1] != ("in",) or len(interfaces) > 2 or len(set(interfaces)) != len(interfaces) or \
            not all(IFNAME_RE.match(i) for i in interfaces):
        raise ValueError(f"catalog: image {name}: interfaces must be ['in'] or ['in', NAME]")
    further = CLASSES[body["class"]].further_interfaces
    if further is not None and not set(interfaces[1:]) <= set(further):
        raise ValueError(f"catalog: image {name}: a {body['class']} vNF's further interfaces are "
                         f"{list(further) or 'none'}")
    built = dict(rootfs.get("built", {}))
    if not all(k.startswith("/") and v and not v.startswith("/") and ".." not in v.split("/")
               for k, v in built.items()):
        raise ValueError(f"catalog: image {name}: built maps absolute image paths to paths under vnfs/")
    return CatalogImage(name=name, vnf_class=body["class"], cpu=float(body["cpu"]), memory_mib=int(body["memory_mib"]),
                        busybox=bool(rootfs.get("busybox", True)), binaries=tuple(rootfs.get("binaries", [])),
                        extra_libs=tuple(rootfs.get("extra_libs", [])), params=params, interfaces=interfaces,
                        built=built)
