"""History retention: what finished operations, the event log and deleted slices leave in the database is kept for
HISTORY_KEEP_S seconds and at most HISTORY_MAX_ROWS rows of each (the newest), then pruned.

Without it the database grew with every slice ever created (the soak: +274 % over 300 create/delete cycles) while
the slices it serves stayed the same. Pruned: operations that ended (their journal and idempotency key: a retry of
a key older than the window is a new request), events, and deleted slices none of whose operations is kept any
more (with their vAP and vNF rows). Active operations and slices that are not deleted are never touched. The lease
keeper (saga.py) prunes once a minute on every instance; the deletes are idempotent, so instances may overlap.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, exists, or_, select
from sqlalchemy.orm import Session

from .models import ACTIVE_STATES, Event, Operation, Slice, SliceVap, SliceVnf

PRUNE_EVERY_S = 60.0


@dataclass(frozen=True)
class Retention:
    keep_s: float = 30 * 86400.0
    max_rows: int = 100_000

    def __post_init__(self) -> None:
        if not 60 <= self.keep_s <= 10 * 365 * 86400:
            raise ValueError(f"WISLICE_HISTORY_KEEP_S must be 60 s to 10 years, not {self.keep_s}")
        if not 10 <= self.max_rows <= 100_000_000:
            raise ValueError(f"WISLICE_HISTORY_MAX_ROWS must be 10 to 100000000, not {self.max_rows}")


def retention_from(settings: dict[str, Any]) -> Retention:
    return Retention(float(settings["HISTORY_KEEP_S"]), int(settings["HISTORY_MAX_ROWS"]))


def _oldest_kept_id(db: Session, column: Any, *where: Any, max_rows: int) -> int | None:
    """The id of the max_rows-th newest row (rows with a lower id are beyond the limit), None if there are fewer."""
    return db.scalar(select(column).where(*where).order_by(column.desc()).offset(max_rows - 1).limit(1))


def prune(db: Session, retention: Retention, now: dt.datetime) -> dict[str, int]:
    """Delete the history beyond the retention; returns how many rows of each kind went. Commits."""
    cutoff = now - dt.timedelta(seconds=retention.keep_s)
    ended = Operation.status.not_in(ACTIVE_STATES)
    too_old = [Operation.finished_at < cutoff]
    newest = _oldest_kept_id(db, Operation.id, ended, max_rows=retention.max_rows)
    if newest is not None:
        too_old.append(Operation.id < newest)
    ops = db.execute(delete(Operation).where(ended, or_(*too_old)).execution_options(synchronize_session=False))
    old_events = [Event.ts < cutoff]
    newest = _oldest_kept_id(db, Event.id, max_rows=retention.max_rows)
    if newest is not None:
        old_events.append(Event.id < newest)
    events = db.execute(delete(Event).where(or_(*old_events)).execution_options(synchronize_session=False))
    gone = select(Slice.id).where(Slice.status == "deleted", ~exists().where(Operation.slice_id == Slice.id))
    ids = list(db.scalars(gone))
    for child in (SliceVap, SliceVnf):
        db.execute(delete(child).where(child.slice_id.in_(ids)).execution_options(synchronize_session=False))
    db.execute(delete(Slice).where(Slice.id.in_(ids)).execution_options(synchronize_session=False))
    db.commit()
    return {"operations": ops.rowcount, "events": events.rowcount, "slices": len(ids)}  # type: ignore[attr-defined]
