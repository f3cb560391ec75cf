"""Leases on operations, so that several orchestrator instances share one database and each operation has one
runner.

An operation's row names the instance running it (`lease_owner`) and until when (`lease_expires_at`). An instance
sets both when it records an operation, renews them while it works (saga.py: a keeper thread, and every journal
write), and an instance that finds an active operation whose lease has expired takes it over: its runner died or
lost the database, so its steps are finished or undone from the journal. Taking and renewing are single
conditional UPDATEs (the condition is checked and the row written in one statement: on PostgreSQL under the row's
lock, on SQLite under the database's write lock), so two instances never both hold one lease.

Times are naive UTC from each instance's own clock, as everywhere in the schema: instances must keep their clocks
in step (NTP), far closer than the lease duration.
"""

from __future__ import annotations

import datetime as dt
import re
import secrets
import socket
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, or_, update
from sqlalchemy.orm import Session

from .models import ACTIVE_STATES, Operation

INSTANCE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,63}")
MAX_LEASE_S = 3600.0


class LeaseLost(Exception):
    """Another instance holds the operation's lease now (this one stalled past its expiry): stop running it."""


@dataclass(frozen=True)
class LeaseTerms:
    """Who this instance is, how long a lease it takes and how often it renews it."""

    owner: str
    duration_s: float = 30.0
    renew_s: float = 10.0

    def __post_init__(self) -> None:
        if not INSTANCE_ID.fullmatch(self.owner):
            raise ValueError(f"WISLICE_INSTANCE_ID {self.owner!r}: 1-64 letters, digits, '.', '_', ':' or '-', "
                             "starting with a letter or digit")
        if not 0 < self.renew_s:
            raise ValueError(f"WISLICE_LEASE_RENEW_S must be above 0, not {self.renew_s}")
        # A lease must outlive one missed renewal (a slow database write), or a live runner loses its operation.
        if not 2 * self.renew_s <= self.duration_s <= MAX_LEASE_S:
            raise ValueError(f"WISLICE_LEASE_S must be at least twice WISLICE_LEASE_RENEW_S ({self.renew_s}) and at "
                             f"most {MAX_LEASE_S:g}, not {self.duration_s}")

    def expiry(self, now: dt.datetime) -> dt.datetime:
        return now + dt.timedelta(seconds=self.duration_s)


def generated_instance_id() -> str:
    """A new id for an instance configured without one: the host's name (readable in events) and random digits
    (two processes on one host differ)."""
    host = re.sub(r"[^A-Za-z0-9._-]", "-", socket.gethostname())[:40] or "host"
    return f"{host}-{secrets.token_hex(4)}".lstrip("._-") or secrets.token_hex(4)


# The id of the one instance an SQLite database serves (SQLite is never shared: admission's lock is in-process).
SQLITE_INSTANCE_ID = "local"


def terms_from(settings: dict[str, Any]) -> LeaseTerms:
    """The lease terms of the settings (INSTANCE_ID, LEASE_S, LEASE_RENEW_S). An empty INSTANCE_ID is
    SQLITE_INSTANCE_ID on SQLite, so a restarted orchestrator takes its interrupted operations back at once (a
    generated id waited out their lease: a creation hung 30 s), and generated on a database instances share."""
    owner = settings["INSTANCE_ID"]
    if not owner:
        sqlite = str(settings.get("DATABASE_URL", "")).startswith("sqlite")
        owner = SQLITE_INSTANCE_ID if sqlite else generated_instance_id()
    return LeaseTerms(owner, float(settings["LEASE_S"]), float(settings["LEASE_RENEW_S"]))


def takeable(terms: LeaseTerms, now: dt.datetime, own: bool) -> ColumnElement[bool]:
    """An active operation nobody holds: no owner (recorded before leases existed), or an expired lease; with
    `own`, also one this instance id holds (a previous run of this instance, which a restart interrupted)."""
    free = [Operation.lease_owner.is_(None), Operation.lease_expires_at < now]
    if own:
        free.append(Operation.lease_owner == terms.owner)
    return or_(*free)


def take(db: Session, terms: LeaseTerms, op_id: int, now: dt.datetime, own: bool = True) -> bool:
    """Take the lease of an active operation if it is takeable; True if this instance holds it now. Not committed:
    the caller commits it with whatever it records about the operation."""
    result = db.execute(update(Operation).where(Operation.id == op_id, Operation.status.in_(ACTIVE_STATES),
                                                takeable(terms, now, own))
                        .values(lease_owner=terms.owner, lease_expires_at=terms.expiry(now))
                        .execution_options(synchronize_session=False))
    return result.rowcount == 1  # type: ignore[attr-defined]


def renew(db: Session, terms: LeaseTerms, op_id: int, now: dt.datetime) -> bool:
    """Extend this instance's lease of an operation; False if another instance holds it now. Not committed: a
    journal write commits it in the same transaction, so a runner that lost its lease cannot write the journal."""
    result = db.execute(update(Operation).where(Operation.id == op_id, Operation.lease_owner == terms.owner)
                        .values(lease_expires_at=terms.expiry(now))
                        .execution_options(synchronize_session=False))
    return result.rowcount == 1  # type: ignore[attr-defined]


def claim(op: Operation, terms: LeaseTerms, now: dt.datetime) -> None:
    """A new operation is leased to the instance that records it, in the same transaction: it sits in that
    instance's queue, and nobody else may start it unless that instance dies first."""
    op.lease_owner = terms.owner
    op.lease_expires_at = terms.expiry(now)
