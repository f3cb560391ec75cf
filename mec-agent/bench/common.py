"""Shared setup for the mec-agent benchmarks: a private dockerd, a node namespace and a manager over them, all
removed at the end (also on failure); and the real DPDK pofswitch in that namespace, steered by the pof-switch
team's test controller (pof-switch/tests/integration/pofctl.py), for benchmarks that go through the switch."""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from wislice_mec_agent.catalog import Catalog  # noqa: E402
from wislice_mec_agent.config import AgentConfig  # noqa: E402
from wislice_mec_agent.manager import VnfManager  # noqa: E402
from wislice_mec_agent.pool import WarmPool  # noqa: E402
from wislice_mec_agent.reconcile import reconcile  # noqa: E402
from wislice_mec_agent.runtime import DockerRuntime  # noqa: E402
from wislice_mec_agent.store import Store  # noqa: E402
from wislice_mec_agent.switch import MgmtSwitch, NoSwitch, SwitchPort  # noqa: E402
from wislice_mec_agent.wiring import PyrouteWiring, run_in_netns  # noqa: E402

POFSWITCH = Path(os.environ.get("POFSWITCH", ROOT / "pof-switch" / "build" / "pofswitch"))
POFCTL_DIR = ROOT / "pof-switch" / "tests" / "integration"
ENTRY_METER = 1  # steer(entry_kbps=...)'s meter
SWITCH_CPU = 1  # the pofswitch's one lcore; placement (switch_cpus) puts DPDK vNFs on the other CPUs
# The agent's port templates for the DPDK pofswitch, as in examples/mec-agent.toml.
VETH_ARGS = "net_af_packet_{name},iface={ifname},qdisc_bypass=0"
VHOST_ARGS = "net_vhost_{name},iface={socket}"
MM = 0  # POF table type: masked match (MM 0 is global table 0, where every packet starts)
MD_IN_PORT = {"field_id": 0xFFFF, "offset": 16, "length": 8}  # metadata bits 16-23: the input port


@contextlib.contextmanager
def bench_node(warm_pool: dict[str, int] | None = None, **cfg: Any) -> Iterator[tuple[VnfManager, Any, Any]]:
    from wislice_testbed.dockerd import PrivateDockerd
    from wislice_testbed.netns import Namespace

    dockerd = PrivateDockerd.start("mb")
    ns = None
    state = Path(tempfile.mkdtemp(prefix="wislice-mec-bench-"))
    manager = None
    try:
        ns = Namespace.create("mb")
        config = AgentConfig(agent_id=f"bench-{secrets.token_hex(3)}", state_dir=str(state),
                             docker_url=dockerd.base_url, capacity_cpu=64.0, capacity_memory_mib=65536,
                             veth_prefix=f"wb{secrets.token_hex(2)}", node_netns=ns.name,
                             warm_pool=warm_pool or {}, **cfg)
        catalog = Catalog.load()
        runtime = DockerRuntime(dockerd.base_url)
        pool = WarmPool(config, catalog, runtime) if warm_pool else None
        manager = VnfManager(config, catalog, Store(config.db_path), runtime, PyrouteWiring(ns.name), NoSwitch(),
                             pool=pool)
        yield manager, dockerd, ns
    finally:
        if manager is not None:
            if manager.pool is not None:
                with contextlib.suppress(Exception):
                    manager.pool.drain()
            for rec in manager.store.all():  # each one tried, whatever happened to the others
                with contextlib.suppress(Exception):
                    manager.delete(rec.vnf_id)
            with contextlib.suppress(Exception):
                reconcile(manager)
        if ns is not None:
            ns.delete()
        dockerd.stop()
        shutil.rmtree(state, ignore_errors=True)


class SteeredPofSwitch:
    """The real DPDK pofswitch (pof-switch/build/pofswitch) in the node namespace ``ns`` on lcore SWITCH_CPU,
    connected to a pofctl Controller listening in that namespace. ``ports`` [(name, devargs)] are given on the
    command line; the agent hot-adds more through ``switch`` (its MgmtSwitch, with VETH_ARGS / VHOST_ARGS), and
    --enable-ports brings them all up without a PORT_MOD. ``steer`` installs one MM table keyed on the input-port
    metadata. ``close()`` stops the switch by pid and removes what EAL left; also a context manager."""

    def __init__(self, ns: Any, hugepages_dir: str, work_dir: Path, ports: list[tuple[str, str]],
                 tag: str = "chain") -> None:
        from wislice_testbed.processes import ProcessManager

        if not os.access(POFSWITCH, os.X_OK):
            raise FileNotFoundError(f"{POFSWITCH} is not built (make -C pof-switch build)")
        if str(POFCTL_DIR) not in sys.path:
            sys.path.insert(0, str(POFCTL_DIR))
        import pofctl

        self.pofctl = pofctl
        self.prefix = f"{tag}{os.getpid()}x{secrets.token_hex(2)}"
        self.mgmt = Path(work_dir) / f"{self.prefix}.sock"
        self.procs = ProcessManager(Path(work_dir) / "logs")
        self.proc: Any = None
        # The switch dials 127.0.0.1 in its namespace: the controller's listening socket must live there too.
        self.ctl = run_in_netns(ns.path, pofctl.Controller)
        try:
            argv = [str(POFSWITCH), "-l", str(SWITCH_CPU), "--in-memory", "--huge-dir", hugepages_dir, "--no-pci",
                    "--file-prefix", self.prefix, "--no-telemetry", "--log-level=lib.eal:error", "--",
                    "--controller", f"127.0.0.1:{self.ctl.port}", "--mgmt", str(self.mgmt), "--enable-ports",
                    *pofctl.SCRIPTED_CONTROLLER_ARGS]
            for name, devargs in ports:
                argv += ["--port", f"{name}={devargs}"]
            self.proc = self.procs.start(argv, netns=ns, log_name="pofswitch")
            try:
                self.ctl.accept(timeout=20)
                found = self.ctl.handshake()
            except (TimeoutError, ConnectionError) as exc:
                raise RuntimeError(f"pofswitch did not come up: {exc}\n{self.procs.tails()}") from exc
            for p in found.values():
                self.ctl.enable_port(p)
            self.ctl.echo()
            self.port_ids = {name: p["port_id"] for name, p in found.items()}
            self.switch = MgmtSwitch(str(self.mgmt), veth_args=VETH_ARGS, vhost_args=VHOST_ARGS)
        except BaseException:
            self.close()
            raise

    def steer(self, hops: list[tuple[int, int]], entry_kbps: int = 0) -> None:
        """MM table 0 "by-in-port" on metadata bits 16-23: one flow per (input port, output port). ``entry_kbps``
        > 0: the first hop's flow goes through a meter of that rate (a source held to a rate; the excess is
        dropped at the switch, before any vNF)."""
        ctl, pofctl = self.ctl, self.pofctl
        ctl.table(MM, 0, "by-in-port", [MD_IN_PORT], size=max(16, 2 * len(hops)))
        if entry_kbps > 0:
            ctl.meter(ENTRY_METER, entry_kbps)
        for index, (in_port, out_port) in enumerate(hops):
            if not 0 < in_port < 256:
                raise ValueError(f"input port {in_port} does not fit the 8-bit metadata field")
            meter = [{"type": "METER", "meter_id": ENTRY_METER}] if entry_kbps > 0 and index == 0 else []
            ctl.flow(MM, 0, index, [pofctl.mx(MD_IN_PORT, bytes([in_port]))],
                     [*meter, {"type": "APPLY_ACTIONS", "actions": [pofctl.output(out_port)]}], priority=10)
        ctl.echo()
        ctl.expect_no("ERROR", wait=0.2)

    def counters(self) -> dict[str, SwitchPort]:
        """Every port's counters from the management socket (the switch's side: tx = what it sent the port)."""
        return self.switch.ports()

    def tails(self) -> str:
        return self.procs.tails()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.ctl.close()
        self.procs.stop_all()
        # EAL leaves its (empty) runtime directory even with --in-memory; the mgmt socket may stay behind.
        shutil.rmtree(Path("/var/run/dpdk") / self.prefix, ignore_errors=True)
        with contextlib.suppress(FileNotFoundError):
            self.mgmt.unlink()

    def __enter__(self) -> SteeredPofSwitch:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
