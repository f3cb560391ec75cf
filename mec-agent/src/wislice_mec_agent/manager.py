"""The vNF manager: createVnf / delVnf / getVnfs / syncVnfs / getStatus over the runtime, wiring and switch
boundaries, with SQLite records. Every create step registers its undo, so a failure leaves no partial state."""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import shlex
import shutil
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from wislice_agent_proto.errors import AgentError

from . import chainfile
from .catalog import Catalog, CatalogImage
from .config import AgentConfig
from .ids import address_of, check_vnf_id, container_name, host_ifname
from .placement import SHARED_CORE_FILE, CorePlanner, node_cpus, parse_cpus, run_params, wants_latency
from .runtime import LABEL_AGENT, LABEL_IMAGE, LABEL_VNF_ID, ContainerRuntime
from .spec import VnfSpec, parse_vnf_spec
from .store import Store, VnfRecord
from .switch import SwitchAttachment
from .vnf_classes import vnf_class
from .wiring import NetWiring

log = logging.getLogger(__name__)
PAUSE_ENV = "WISLICE_MEC_TEST_PAUSE_AT"  # fault injection for the kill -9 mid-create test: a step name

EventSink = Callable[[int, str], None]


def live_state(rec: VnfRecord, status: str | None) -> str:
    """A record's state as its container (``status``, None when there is none) shows it now: a running vNF whose
    container stopped is stopped, one whose container is gone failed."""
    if rec.state == "running" and status != "running":
        return "failed" if status is None else "stopped"
    return rec.state


class Undo:
    """A stack of undo actions run in reverse on failure; each is attempted even if an earlier one fails."""

    def __init__(self) -> None:
        self.actions: list[tuple[str, Callable[[], Any]]] = []

    def push(self, what: str, fn: Callable[[], Any]) -> None:
        self.actions.append((what, fn))

    def run(self) -> list[str]:
        errors = []
        for what, fn in reversed(self.actions):
            try:
                fn()
            except Exception as exc:
                errors.append(f"{what}: {exc}")
                log.error("undo %s failed: %s", what, exc)
        self.actions.clear()
        return errors


def params_env(params: dict[str, Any]) -> str:
    """Parameters as shell assignments P_<name>=<value> (names are [A-Za-z0-9_], values quoted)."""
    lines = []
    for name, value in sorted(params.items()):
        text = ("true" if value else "false") if isinstance(value, bool) else str(value)
        lines.append(f"P_{name}={shlex.quote(text)}")
    return "\n".join(lines) + "\n"


class VnfManager:
    def __init__(self, config: AgentConfig, catalog: Catalog, store: Store, runtime: ContainerRuntime,
                 wiring: NetWiring, switch: SwitchAttachment, pool: Any = None) -> None:
        self.config = config
        self.catalog = catalog
        self.store = store
        self.runtime = runtime
        self.wiring = wiring
        self.switch = switch
        self.pool = pool
        self.lock = threading.RLock()
        self.started = time.monotonic()
        self.events: list[EventSink] = []
        self.planner = CorePlanner(node_cpus(config.node_cpus), parse_cpus(config.switch_cpus))
        config.vnf_dir.mkdir(parents=True, exist_ok=True)

    # ---- helpers ----------------------------------------------------------------------------------------------
    def _emit(self, vnf_id: int, state: str) -> None:
        for sink in self.events:
            try:
                sink(vnf_id, state)
            except Exception as exc:
                log.warning("event sink failed: %s", exc)

    @staticmethod
    def _pause(step: str) -> None:
        if os.environ.get(PAUSE_ENV) == step:
            log.warning("paused at %s for a fault-injection test", step)
            time.sleep(3600)

    def used(self) -> tuple[float, int]:
        recs = self.store.all()
        return sum(r.spec.cpu for r in recs), sum(r.spec.memory_mib for r in recs)

    def vnf_dir(self, vnf_id: int) -> Path:
        return self.config.vnf_dir / str(vnf_id)

    def port_name(self, vnf_id: int) -> str:
        return host_ifname(self.config.veth_prefix, vnf_id)

    def state_of(self, rec: VnfRecord, placement: bool | None = None) -> dict[str, Any]:
        """VnfState (spec/agent: VnfSpec without chain_id, plus vnf_id, address, class, state, container_id, ports;
        cpus and cpu_mode for a placed vNF when ``placement``, by default config.report_placement)."""
        state = dict(rec.spec.to_json())
        state.pop("chain_id", None)  # VnfState has no chain_id: the nfv-controller's check refuses unknown fields
        state.pop("latency_class", None)  # nor latency_class
        state.update(vnf_id=rec.vnf_id, address=address_of(rec.vnf_id), state=rec.state, ports=rec.ports,
                     container_id=rec.container_id or "0" * 12)
        state["class"] = rec.vnf_class
        placed = self.planner.placement(rec.vnf_id)
        if placed is not None and (self.config.report_placement if placement is None else placement):
            state.update(placed.to_json())
        return state

    # ---- createVnf --------------------------------------------------------------------------------------------
    def create(self, vnf_obj: object) -> dict[str, Any]:
        spec = parse_vnf_spec(vnf_obj)
        image = self.catalog.check_spec(spec)
        with self.lock:
            rec = self._admit(spec, image)
            try:
                rec = self._build(rec, image)
            except AgentError:
                raise
            except Exception as exc:
                log.exception("createVnf %d failed", rec.vnf_id)
                raise AgentError("internal", f"createVnf {rec.vnf_id}: {exc}") from exc
        self._emit(rec.vnf_id, "running")
        return self.state_of(rec)

    def _admit(self, spec: VnfSpec, image: CatalogImage) -> VnfRecord:
        """Checks that need no side effect, then the 'creating' record (the only thing a crash can leave)."""
        vnf_id = spec.vnf_id
        if self.store.get(vnf_id) is not None:
            raise AgentError("conflict", f"vnf_id {vnf_id} (tenant {spec.tenant_id}, instance {spec.instance_id})"
                                         " already exists on this node")
        cpu, mem = self.used()
        if cpu + spec.cpu > self.config.capacity_cpu + 1e-9:
            raise AgentError("capacity", f"cpu {spec.cpu} does not fit: {cpu:g} of {self.config.capacity_cpu:g}"
                                         " cores in use")
        if mem + spec.memory_mib > self.config.capacity_memory_mib:
            raise AgentError("capacity", f"memory {spec.memory_mib} MiB does not fit: {mem} of"
                                         f" {self.config.capacity_memory_mib} MiB in use")
        cls = vnf_class(image.vnf_class)
        if cls.needs_switch and not self.switch.present:
            raise AgentError("unsupported", f"image {image.name} is a {cls.name} vNF: this node has no pof-switch")
        rec = VnfRecord(vnf_id=vnf_id, spec=spec, vnf_class=image.vnf_class, state="creating",
                        container_name=container_name(self.config.agent_id, vnf_id),
                        config_dir=str(self.vnf_dir(vnf_id)), host_ifname=cls.host_ifname(self, vnf_id))
        if not self.store.insert_new(rec):
            raise AgentError("conflict", f"vnf_id {vnf_id} already exists on this node")
        return rec

    def _build(self, rec: VnfRecord, image: CatalogImage) -> VnfRecord:
        undo = Undo()
        undo.push("record", lambda: self.store.delete(rec.vnf_id))
        try:
            return self._build_steps(rec, image, undo)
        except BaseException:
            errors = undo.run()
            if errors:
                log.error("createVnf %d: rollback incomplete: %s", rec.vnf_id, "; ".join(errors))
            raise

    def _build_steps(self, rec: VnfRecord, image: CatalogImage, undo: Undo) -> VnfRecord:
        spec, vnf_id, cls = rec.spec, rec.vnf_id, vnf_class(image.vnf_class)
        cpus, params = "", spec.params
        if cls.placed:
            placed = self.planner.place(vnf_id, wants_latency(spec))
            undo.push("cpu placement", lambda: self.planner.release(vnf_id))
            cpus, params = placed.cpus, run_params(spec, image.params)
            if params != spec.params:
                log.info("vNF %d: latency slice on a %s core: runs with %s", vnf_id, placed.mode, params)
        claimed = self.pool.claim(image.name) if self.pool is not None else None
        if claimed is not None:
            container_id, pid, cdir = claimed.container_id, claimed.pid, Path(claimed.config_dir)
            rec = rec.with_(config_dir=str(cdir), container_id=container_id)
            self.store.put(rec)
            undo.push("container", lambda: self.runtime.remove(container_id))
            undo.push("config dir", lambda: shutil.rmtree(cdir, ignore_errors=True))
            self.runtime.rename(container_id, rec.container_name)
            self.runtime.update_limits(container_id, spec.cpu, spec.memory_mib, cpus)
            (cdir / "params.env").write_text(params_env(params))
        else:
            cdir = Path(rec.config_dir)
            cdir.mkdir(parents=True, exist_ok=True)
            undo.push("config dir", lambda: shutil.rmtree(cdir, ignore_errors=True))
            (cdir / "params.env").write_text(params_env(params))
        if cls.name == "dpdk" and self.config.dataplane_backpressure:
            # data-plane backpressure: the chain's file, linked before the vNF starts (run.sh reads it once)
            chainfile.attach(Path(self.config.state_dir), spec.chain, spec.chain_position, cdir)
            undo.push("chain file", lambda: self._detach_chain(rec))
        if cls.placed:
            self.mark_shared_cores()  # before it starts: a latency vNF begins in the right polling mode
        ports = cls.wire_before_start(self, rec, cdir, undo)
        self._pause("switch")
        if claimed is None:
            labels = {LABEL_AGENT: self.config.agent_id, LABEL_VNF_ID: str(vnf_id), LABEL_IMAGE: image.name}
            container_id = self.runtime.create(cls.container(self.config, self.runtime.ensure_image(image),
                                                             rec.container_name, labels, spec.cpu, spec.memory_mib,
                                                             cdir, cpus))
            undo.push("container", lambda: self.runtime.remove(container_id))
            rec = rec.with_(container_id=container_id)
            self.store.put(rec)
            pid = self.runtime.start(container_id)
        self._pause("container")
        ports += cls.wire_after_start(self, rec, image.interfaces, pid, undo)
        self._pause("wiring")
        (cdir / "ready").write_text("1\n")
        rec = rec.with_(state="running", ports=ports)
        self.store.put(rec)
        return rec

    # ---- delVnf -----------------------------------------------------------------------------------------------
    def delete(self, vnf_id: object) -> dict[str, Any]:
        vnf_id = check_vnf_id(vnf_id)
        with self.lock:
            rec = self.store.get(vnf_id)
            if rec is None:
                raise AgentError("not_found", f"no vNF {vnf_id} on this node")
            errors = self.teardown(rec)
            if errors:
                self.store.put(rec.with_(state="failed"))
                raise AgentError("internal", f"delVnf {vnf_id}: {'; '.join(errors)}")
            self.store.delete(vnf_id)
        self._emit(vnf_id, "removed")
        return {}

    def teardown(self, rec: VnfRecord) -> list[str]:
        """Remove everything a vNF may own (switch port, container, veth, config dir); each step is tried."""
        undo = Undo()  # reused as "run all, collect errors", in this order (pushed reversed)
        cdir = Path(rec.config_dir)
        undo.push("config dir", lambda: shutil.rmtree(cdir) if cdir.exists() else None)
        for ifname in self.link_names(rec):
            undo.push("veth", lambda ifname=ifname: self.wiring.delete_link(ifname))
        undo.push("container", lambda: self.runtime.remove(rec.container_id or rec.container_name))
        if rec.container_id:
            undo.push("container by name", lambda: self.runtime.remove(rec.container_name))
        for name in self.port_names(rec):
            undo.push("switch port", lambda name=name: self.switch.remove(name))
        self.planner.release(rec.vnf_id)  # its core is free once the container is going (nothing to fail)
        errors = undo.run()
        if rec.vnf_class == "dpdk":
            self._detach_chain(rec)
        self.mark_shared_cores()  # a latency vNF it shared a core with may have it to itself again
        return errors

    def _detach_chain(self, rec: VnfRecord) -> None:
        """Clears the gone vNF's line of its chain file; the file goes with the chain's last DPDK vNF."""
        others = sum(1 for r in self.store.all() if r.vnf_id != rec.vnf_id and r.vnf_class == "dpdk"
                     and r.spec.chain == rec.spec.chain)
        try:
            chainfile.detach(Path(self.config.state_dir), rec.spec.chain, rec.spec.chain_position, others)
        except OSError as exc:
            log.warning("vNF %d: chain file: %s", rec.vnf_id, exc)

    def mark_shared_cores(self) -> None:
        """Each latency vNF's SHARED_CORE_FILE exists exactly while its core is not its own (placement.py)."""
        for vnf_id, shared in self.planner.latency_sharing().items():
            rec = self.store.get(vnf_id)
            if rec is None or not rec.config_dir:
                continue
            flag = Path(rec.config_dir) / SHARED_CORE_FILE
            try:
                if shared:
                    flag.touch()
                else:
                    flag.unlink(missing_ok=True)
            except OSError as exc:  # its config dir is going or gone: nothing left to tell it
                log.warning("vNF %d: could not mark its core %s: %s", vnf_id, "shared" if shared else "own", exc)

    def port_names(self, rec: VnfRecord) -> list[str]:
        """The switch ports a vNF has or may have: the first is named by its vnf_id, the others are in its record."""
        first = self.port_name(rec.vnf_id)
        return [first] + [p["name"] for p in rec.ports if p.get("name") and p["name"] != first]

    def link_names(self, rec: VnfRecord) -> list[str]:
        """The host veths of a kernel vNF (none for DPDK)."""
        if not rec.host_ifname:
            return []
        return [rec.host_ifname] + [p["name"] for p in rec.ports if p.get("name") and p["name"] != rec.host_ifname]

    # ---- getVnfs / getStatus ----------------------------------------------------------------------------------
    def list_states(self, placement: bool | None = None) -> list[dict[str, Any]]:
        with self.lock:
            live = {c.name: c.status for c in self.runtime.list(self.config.agent_id)}
            out = []
            for rec in self.store.all():
                state = live_state(rec, live.get(rec.container_name))
                out.append(self.state_of(rec if state == rec.state else rec.with_(state=state), placement))
            return out

    def status(self) -> dict[str, Any]:
        cpu, mem = self.used()
        return {"agent_id": self.config.agent_id, "uptime_s": int(time.monotonic() - self.started),
                "capacity": {"cpu": self.config.capacity_cpu, "memory_mib": self.config.capacity_memory_mib},
                "used": {"cpu": round(cpu, 6), "memory_mib": mem}, "vnfs": len(self.store.all())}

    # ---- syncVnfs ---------------------------------------------------------------------------------------------
    def sync(self, vnfs: object) -> dict[str, Any]:
        if not isinstance(vnfs, list) or len(vnfs) > 1024:
            raise AgentError("bad_request", "vnfs must be a list of at most 1024 VnfSpec")
        desired: dict[int, VnfSpec] = {}
        failed: list[dict[str, Any]] = []
        for obj in vnfs:
            spec = parse_vnf_spec(obj)  # one unparsable spec fails the whole request: its vnf_id is unknown
            if spec.vnf_id in desired:
                raise AgentError("bad_request", f"vnf_id {spec.vnf_id} appears twice")
            desired[spec.vnf_id] = spec
        created, removed, kept = [], [], []
        with self.lock:
            live = {c.name: c.status for c in self.runtime.list(self.config.agent_id)}
            for rec in self.store.all():
                want = desired.get(rec.vnf_id)
                healthy = rec.state == "running" and live.get(rec.container_name) == "running"
                if want is not None and healthy and dataclasses.replace(want, chain_id=rec.spec.chain_id) == rec.spec:
                    if want.chain_id != rec.spec.chain_id:  # only the agent reads it: recorded, the vNF stays
                        self.store.put(rec.with_(spec=want))
                    kept.append(rec.vnf_id)
                    continue
                try:
                    self.delete(rec.vnf_id)
                    if want is None:
                        removed.append(rec.vnf_id)
                except AgentError as exc:
                    failed.append({"vnf_id": rec.vnf_id, "error": exc.message})
                    desired.pop(rec.vnf_id, None)
            for vnf_id, spec in desired.items():
                if vnf_id in kept:
                    continue
                try:
                    self.create(spec.to_json())
                    created.append(vnf_id)
                except AgentError as exc:
                    failed.append({"vnf_id": vnf_id, "error": exc.message})
        return {"created": created, "removed": removed, "kept": kept, "failed": failed}

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.store.close()
