"""Database tables. The orchestrator's own records: tenants, tokens, slices and their parts, operations (the saga
journal), events and the operator-configured wired topology."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from sqlalchemy import JSON, ForeignKey, Integer, String, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, composite, mapped_column, relationship

from .bandwidth import FIELD_NAMES, Bandwidth


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


class Base(DeclarativeBase):
    pass


@dataclass(frozen=True)
class Quota:
    """What a tenant may hold at once, as the API shows and takes it (schemas.QuotaSchema); the quota_* columns."""

    slices: int
    vaps: int
    bandwidth_kbps: int
    cpu: float
    memory_mib: int


class Tenant(Base):
    __tablename__ = "tenants"
    # The 16-bit tenant_id that the agents, vNF ids and slice tags carry.
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    quota_slices: Mapped[int] = mapped_column(Integer, default=10)
    quota_vaps: Mapped[int] = mapped_column(Integer, default=8)
    quota_bandwidth_kbps: Mapped[int] = mapped_column(Integer, default=100_000)
    quota_cpu: Mapped[float] = mapped_column(default=4.0)
    quota_memory_mib: Mapped[int] = mapped_column(Integer, default=4096)
    # The five as one value, so the API shows and changes a quota whole (set `quota`, not the columns: a value
    # read before a column is written directly would not see it).
    quota: Mapped[Quota] = composite(Quota, "quota_slices", "quota_vaps", "quota_bandwidth_kbps", "quota_cpu",
                                     "quota_memory_mib")
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    slices: Mapped[list[Slice]] = relationship(back_populates="tenant")


class ApiToken(Base):
    __tablename__ = "api_tokens"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    # SHA-256 of the token: tokens are 256-bit random values, so a fast hash is enough and lookups stay O(1).
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    # The role's prefix only (wso_, wst_); rows from before migration 0005 kept 4 characters of the secret too.
    prefix: Mapped[str] = mapped_column(String(16))
    role: Mapped[str] = mapped_column(String(16))  # operator | tenant
    tenant_id: Mapped[int | None] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"), nullable=True)
    name: Mapped[str] = mapped_column(String(64), default="")
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    # Refused from this time on (auth.py). None only for the configured bootstrap operator token, which lives as
    # long as the configuration names it (app._bootstrap rotates it).
    expires_at: Mapped[dt.datetime | None] = mapped_column(nullable=True)
    # Set once by a revocation and never cleared: the row stays, so its id answers "revoked", not "unknown".
    revoked_at: Mapped[dt.datetime | None] = mapped_column(nullable=True)
    # When the token last authenticated a request, to a minute (auth.LAST_USED_STEP_S), so a reader does not write.
    last_used_at: Mapped[dt.datetime | None] = mapped_column(nullable=True)

    @property
    def revoked(self) -> bool:
        return self.revoked_at is not None


class Slice(Base):
    __tablename__ = "slices"
    # Ids are never reused (SQLite would reuse the highest after a delete; migration 0004).
    __table_args__ = {"sqlite_autoincrement": True}
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id"))
    name: Mapped[str] = mapped_column(String(64))
    # The slice's bandwidth is read and written as one value, `bandwidth` (bandwidth.py), never column by column:
    # assigning a Bandwidth writes the four columns, and it checks its invariants before any of them is set.
    down_guaranteed_kbps: Mapped[int] = mapped_column(Integer, default=0)
    up_guaranteed_kbps: Mapped[int] = mapped_column(Integer, default=0)
    down_cap_kbps: Mapped[int] = mapped_column(Integer, default=0)
    up_cap_kbps: Mapped[int] = mapped_column(Integer, default=0)
    bandwidth: Mapped[Bandwidth] = composite(Bandwidth, "down_guaranteed_kbps", "up_guaranteed_kbps", "down_cap_kbps",
                                             "up_cap_kbps")
    latency_class: Mapped[str] = mapped_column(String(16), default="best_effort")
    # The wired + MEC part's latency budget in microseconds: set for the latency classes, None for best effort
    # (schemas.latency_budget_errors).
    latency_budget_us: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # The in-band latency probe the slice asked for, {source_ip, target_ip, interval_ms} (schemas.ProbeSchema), or
    # None: its vAPs get it in their VapSpec while the slice has a latency class (steps.vap_spec).
    probe: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    # creating | active | failed | deleting | deleted
    status: Mapped[str] = mapped_column(String(16), default="creating")
    status_reason: Mapped[str] = mapped_column(String(500), default="")
    mec_node: Mapped[str | None] = mapped_column(String(64), nullable=True)
    # A bandwidth/latency change being applied by an update_slice operation: {"bandwidth": Bandwidth.to_dict(),
    # "latency_class": ..., "latency_budget_us": ...} (pending_bandwidth reads it back). Admission counts the
    # larger of current and pending values until the operation ends; `bandwidth`, `latency_class` and
    # `latency_budget_us` take the new values only when it succeeds.
    pending_change: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    # Placement result: the wired links the slice reserves bandwidth on, as [[a_device, b_device], ...].
    path_links: Mapped[list[Any]] = mapped_column(JSON, default=list)
    tag: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # Closed-loop policies the slice declared (schemas.PolicySchema), and the policy engine's state of each, in the
    # same order (policy.py): kept here so the dashboard and the API show it and a restart resumes it.
    policies: Mapped[list[Any]] = mapped_column(JSON, default=list)
    policy_state: Mapped[list[Any]] = mapped_column(JSON, default=list)
    # What the radio watch does when a client's handover into another of the slice's APs cannot be re-admitted
    # there (handover_watch.py): "best_effort" (it stays, its guarantee not held) or "steer_back".
    handover_policy: Mapped[str] = mapped_column(String(16), default="best_effort")
    # The slice asked that its vNF chain follow its clients to the MEC node nearest their AP after a handover
    # (vnf_follow.py).
    vnf_follow: Mapped[bool] = mapped_column(default=False)
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    tenant: Mapped[Tenant] = relationship(back_populates="slices")
    vaps: Mapped[list[SliceVap]] = relationship(back_populates="slice", order_by="SliceVap.id")
    vnfs: Mapped[list[SliceVnf]] = relationship(back_populates="slice", order_by="SliceVnf.chain_position")

    def __init__(self, **kwargs: Any) -> None:
        # A slice given no bandwidth is best effort (the columns' defaults) from the start, not only once inserted:
        # until then its four columns are None, which is no Bandwidth.
        if "bandwidth" not in kwargs and not FIELD_NAMES & kwargs.keys():
            kwargs["bandwidth"] = Bandwidth()
        super().__init__(**kwargs)

    @property
    def controller_id(self) -> str:
        """The slice_id the controllers see (unique across tenants)."""
        return f"t{self.tenant_id}s{self.id}"

    @property
    def pending_bandwidth(self) -> Bandwidth | None:
        """The bandwidth the change being applied will set (pending_change); None while no change is."""
        stored = (self.pending_change or {}).get("bandwidth")
        return Bandwidth.from_dict(stored) if stored else None


class SliceVap(Base):
    __tablename__ = "slice_vaps"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    slice_id: Mapped[int] = mapped_column(ForeignKey("slices.id"))
    vap_id: Mapped[str] = mapped_column(String(64), unique=True)
    agent_id: Mapped[str] = mapped_column(String(64))
    radio: Mapped[str] = mapped_column(String(32))
    ssid: Mapped[str] = mapped_column(String(64))
    security_mode: Mapped[str] = mapped_column(String(16), default="open")
    # The WPA passphrase, sealed (at_rest.py: AES-GCM under the key file, never in clear here), kept only until the
    # vAP exists on the agent and cleared then.
    sealed_passphrase: Mapped[str | None] = mapped_column(String(255), nullable=True)
    hidden: Mapped[bool] = mapped_column(default=False)
    max_clients: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # planned | creating | up | removing
    state: Mapped[str] = mapped_column(String(16), default="planned")
    pof_port: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # The wired route placement reserved for this vAP's path, AP switch -> MEC switch, as Link.directed_key of
    # each link's forward (up) direction; None for vAPs recorded before routes were kept per vAP.
    path_links: Mapped[list[Any] | None] = mapped_column(JSON, nullable=True)
    slice: Mapped[Slice] = relationship(back_populates="vaps")


class SliceVnf(Base):
    __tablename__ = "slice_vnfs"
    __table_args__ = (UniqueConstraint("tenant_id", "instance_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    slice_id: Mapped[int] = mapped_column(ForeignKey("slices.id"))
    tenant_id: Mapped[int] = mapped_column(Integer)
    instance_id: Mapped[int] = mapped_column(Integer)
    image: Mapped[str] = mapped_column(String(64))
    params: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    cpu: Mapped[float] = mapped_column(default=0.5)
    memory_mib: Mapped[int] = mapped_column(Integer, default=128)
    chain_position: Mapped[int] = mapped_column(Integer, default=0)
    node: Mapped[str | None] = mapped_column(String(64), nullable=True)
    # planned | running | removing; left_behind: a vNF follow moved the chain to another node and could not remove
    # this one from the old node (out of the path; deleting the slice or the vNF retries).
    state: Mapped[str] = mapped_column(String(16), default="planned")
    ports: Mapped[list[Any]] = mapped_column(JSON, default=list)
    slice: Mapped[Slice] = relationship(back_populates="vnfs")

    @property
    def vnf_id(self) -> int:
        return (self.tenant_id << 16) | self.instance_id

    @property
    def address(self) -> str:
        """The dotted quad of the vnf_id: the address of the vNF's 'in' interface (mec-agent README)."""
        return ".".join(str(self.vnf_id >> shift & 0xFF) for shift in (24, 16, 8, 0))


# Operation states in which a runner still has work to do.
ACTIVE_STATES = ("pending", "running", "rolling_back")


class Operation(Base):
    """One saga run and its journal: each step is recorded before and after it talks to a controller."""

    __tablename__ = "operations"
    # Ids are never reused (SQLite would reuse the highest after a delete; migration 0004).
    __table_args__ = (UniqueConstraint("tenant_id", "idempotency_key"), {"sqlite_autoincrement": True})
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(32))  # create_slice | delete_slice | add_vap | ...
    tenant_id: Mapped[int] = mapped_column(Integer)
    slice_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # pending | running | rolling_back | succeeded | failed
    status: Mapped[str] = mapped_column(String(16), default="pending")
    steps: Mapped[list[Any]] = mapped_column(JSON, default=list)
    error: Mapped[str] = mapped_column(String(1000), default="")
    idempotency_key: Mapped[str | None] = mapped_column(String(128), nullable=True)
    request_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[dt.datetime | None] = mapped_column(nullable=True)
    # The orchestrator instance running the operation, until when (naive UTC; lease.py): one runner across
    # instances, and an expired lease is one whose runner died, so another instance takes the operation over.
    lease_owner: Mapped[str | None] = mapped_column(String(64), nullable=True)
    lease_expires_at: Mapped[dt.datetime | None] = mapped_column(nullable=True)

    @property
    def progress(self) -> float:
        """0..1: the share of its steps done, 1 once it has succeeded (an operation without steps, too)."""
        if self.status == "succeeded":
            return 1.0
        steps = self.steps or []
        return sum(1 for s in steps if s["state"] == "done") / len(steps) if steps else 0.0


class Event(Base):
    __tablename__ = "events"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    ts: Mapped[dt.datetime] = mapped_column(default=utcnow)
    level: Mapped[str] = mapped_column(String(8), default="info")
    kind: Mapped[str] = mapped_column(String(32))
    tenant_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    message: Mapped[str] = mapped_column(String(1000))


def event(db: Session, kind: str, message: str, tenant_id: int | None = None, level: str = "info") -> None:
    """Add one line to the event log (operators see it; a message is cut at 1000 characters)."""
    db.add(Event(kind=kind, message=message[:1000], tenant_id=tenant_id, level=level))


class Lock(Base):
    """Rows that instances sharing the database lock (SELECT ... FOR UPDATE) to run one at a time, e.g. admission."""

    __tablename__ = "locks"
    name: Mapped[str] = mapped_column(String(32), primary_key=True)


class Setting(Base):
    """Operator-managed documents, e.g. the wired topology, stored as JSON by key."""

    __tablename__ = "settings"
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[Any] = mapped_column(JSON)


class Firmware(Base):
    """A signed firmware artifact the operator uploaded (firmware.py); its bytes are a file under the firmware
    directory, named by their sha256."""

    __tablename__ = "firmware"
    __table_args__ = {"sqlite_autoincrement": True}  # ids are never reused: a rollout or URL names one artifact
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    version: Mapped[str] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(String(16))  # sysupgrade | packages
    size: Mapped[int] = mapped_column(Integer)
    sha256: Mapped[str] = mapped_column(String(64), unique=True)
    signature: Mapped[str] = mapped_column(String(512))  # the usign signature file's text, as uploaded
    key_id: Mapped[str] = mapped_column(String(16))  # hex id of the trusted key that verified it
    # The agents' download capability (URL query); never shown by the API.
    download_token: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)


# Rollout states in which it still asks APs to upgrade; a rollout's runner works until finished_at is set (an
# halted or cancelled rollout still watches the APs it had asked until they end).
ROLLOUT_RUNNING = ("pending", "running")
# Per-AP states still in the hands of the AP (the controller's upgrade states before an end).
AP_UPGRADING = ("requested", "downloading", "verifying", "installing", "restarting")


class Rollout(Base):
    """A staged fleet upgrade (rollout.py), run by one instance at a time under a lease as operations are."""

    __tablename__ = "rollouts"
    __table_args__ = {"sqlite_autoincrement": True}
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    firmware_id: Mapped[int] = mapped_column(ForeignKey("firmware.id"))
    # pending | running | finished | halted | cancelled
    status: Mapped[str] = mapped_column(String(16), default="pending")
    reason: Mapped[str] = mapped_column(String(500), default="")
    stage_size: Mapped[int] = mapped_column(Integer)
    parallel: Mapped[int] = mapped_column(Integer)
    max_failures: Mapped[int] = mapped_column(Integer)
    timeout_s: Mapped[int] = mapped_column(Integer)
    retry_offline_s: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[dt.datetime | None] = mapped_column(nullable=True)
    lease_owner: Mapped[str | None] = mapped_column(String(64), nullable=True)
    lease_expires_at: Mapped[dt.datetime | None] = mapped_column(nullable=True)
    firmware: Mapped[Firmware] = relationship()
    aps: Mapped[list[RolloutAp]] = relationship(back_populates="rollout", order_by="RolloutAp.id")


class RolloutAp(Base):
    """One AP of a rollout: pending, then the controller's upgrade states, until an end (ended_at set): done,
    failed, rolled_back, offline (never connected within retry_offline_s), skipped (already on the version) or
    not_started (the rollout halted or was cancelled first)."""

    __tablename__ = "rollout_aps"
    __table_args__ = (UniqueConstraint("rollout_id", "agent_id"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    rollout_id: Mapped[int] = mapped_column(ForeignKey("rollouts.id", ondelete="CASCADE"))
    agent_id: Mapped[str] = mapped_column(String(64))
    stage: Mapped[int] = mapped_column(Integer)  # 1: the first stage, 2: the rest
    state: Mapped[str] = mapped_column(String(16), default="pending")
    reason: Mapped[str] = mapped_column(String(500), default="")
    from_version: Mapped[str | None] = mapped_column(String(64), nullable=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    requested_at: Mapped[dt.datetime | None] = mapped_column(nullable=True)
    offline_since: Mapped[dt.datetime | None] = mapped_column(nullable=True)
    updated_at: Mapped[dt.datetime] = mapped_column(default=utcnow)
    ended_at: Mapped[dt.datetime | None] = mapped_column(nullable=True)
    rollout: Mapped[Rollout] = relationship(back_populates="aps")
