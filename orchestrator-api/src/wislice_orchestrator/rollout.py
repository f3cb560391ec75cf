"""Staged fleet upgrades (issue 18): a runner thread that drives rollouts through the WiFi controller.

Every `poll_s` the runner takes the lease of every unfinished rollout nobody holds (no owner, an expired lease, or
this instance's own from before a restart) in one conditional UPDATE, as lease.py does for operations, so several
instances on one database never run a rollout twice; it renews the lease with each write it commits, and stops
working on a rollout the moment the renewal finds another instance holding it.

For each rollout it holds it then: polls the APs it asked (GET the AP: its "upgrade" record for this version) and
records their states, ends those past timeout_s + GRACE_S without an end (the agent restores the old version after
timeout_s where it can, and the controller reports that as rolled_back; one that never comes back reports
nothing); halts the rollout once max_failures APs failed or rolled back; and asks the next APs: the first stage
(stage_size APs) at once, the rest only once no first-stage AP is pending or upgrading, at most `parallel` at a
time. Before asking an AP it reads it (the contract's GET of the AP: firmware_version, connected): an AP already
on the version is skipped; one not connected waits as "offline" and is asked as soon as it is connected, until
retry_offline_s after it was first found offline (then it ends offline: not counted as a failure, the image is
not at fault). Offline APs do not hold back the next stage.

A halted or cancelled rollout asks no more APs (those not asked end not_started) but keeps watching the APs it
asked until they end: an AP in the middle of an install cannot be stopped, and its outcome is worth recording.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
from collections.abc import Callable
from typing import Any

from sqlalchemy import or_, select, update
from sqlalchemy.orm import Session, sessionmaker

from . import firmware as fw
from .controllers import ControllerError, Controllers
from .lease import LeaseLost, LeaseTerms
from .models import AP_UPGRADING, ROLLOUT_RUNNING, Rollout, RolloutAp, event, utcnow

log = logging.getLogger(__name__)

# How long past timeout_s an AP may stay without an end before the rollout counts it failed: the agent's own
# rollback (timeout_s) plus its restart and reconnection.
GRACE_S = 120
FAILURES = ("failed", "rolled_back")
ENDS = ("done", "failed", "rolled_back")


class RolloutRunner:
    def __init__(self, session_factory: sessionmaker[Session], controllers: Controllers, terms: LeaseTerms,
                 base_url: str, poll_s: float = 2.0) -> None:
        self.session_factory = session_factory
        self.controllers = controllers
        self.terms = terms
        self.base_url = base_url
        self.poll_s = poll_s
        self.clock: Callable[[], dt.datetime] = utcnow  # tests move it instead of waiting
        self.thread: threading.Thread | None = None
        self.stopping = threading.Event()

    def start(self) -> None:
        if self.thread is None:
            self.stopping.clear()
            self.thread = threading.Thread(target=self._loop, name="wislice-rollouts", daemon=True)
            self.thread.start()

    def stop(self) -> None:
        if self.thread is not None:
            self.stopping.set()
            self.thread.join(timeout=30)
            self.thread = None

    def _loop(self) -> None:
        while not self.stopping.wait(self.poll_s):
            try:
                self.tick()
            except Exception:  # a database or controller hiccup: the next round tries again
                log.exception("rollout runner round failed")

    # --- leases ---------------------------------------------------------------------------------------------
    def take(self, db: Session) -> list[int]:
        """Lease every unfinished rollout that is free or this instance's; the ids this instance holds now."""
        if db.scalar(select(Rollout.id).where(Rollout.finished_at.is_(None)).limit(1)) is None:
            return []  # idle: a read, not a write every round (SQLite's one writer stays free for the API)
        now = self.clock()
        db.execute(update(Rollout).where(Rollout.finished_at.is_(None),
                                         or_(Rollout.lease_owner.is_(None), Rollout.lease_expires_at < now,
                                             Rollout.lease_owner == self.terms.owner))
                   .values(lease_owner=self.terms.owner, lease_expires_at=self.terms.expiry(now))
                   .execution_options(synchronize_session=False))
        db.commit()
        return list(db.scalars(select(Rollout.id).where(Rollout.finished_at.is_(None),
                                                        Rollout.lease_owner == self.terms.owner)))

    def _commit(self, db: Session, rollout_id: int) -> None:
        """Commit what was recorded, with the lease renewed in the same transaction; LeaseLost (nothing written)
        if another instance holds the rollout now."""
        result = db.execute(update(Rollout).where(Rollout.id == rollout_id, Rollout.lease_owner == self.terms.owner)
                            .values(lease_expires_at=self.terms.expiry(self.clock()))
                            .execution_options(synchronize_session=False))
        if result.rowcount != 1:  # type: ignore[attr-defined]
            db.rollback()
            raise LeaseLost(f"rollout {rollout_id} is held by another instance")
        db.commit()

    # --- one round ------------------------------------------------------------------------------------------
    def tick(self) -> list[int]:
        """One round over the rollouts this instance holds; the ids it worked on."""
        with self.session_factory() as db:
            held = self.take(db)
        worked = []
        for rollout_id in held:
            with self.session_factory() as db:
                try:
                    self.advance(db, rollout_id)
                    worked.append(rollout_id)
                except LeaseLost as exc:
                    log.warning("%s", exc)
                except ControllerError as exc:  # the controller did not answer: next round
                    log.warning("rollout %s waits for the WiFi controller: %s", rollout_id, exc.message)
        return worked

    def advance(self, db: Session, rollout_id: int) -> None:
        rollout = db.get(Rollout, rollout_id)
        if rollout is None or rollout.finished_at is not None:
            return
        if rollout.status == "pending":  # conditional: a cancel that came first stays
            db.execute(update(Rollout).where(Rollout.id == rollout_id, Rollout.status == "pending")
                       .values(status="running").execution_options(synchronize_session=False))
            self._commit(db, rollout_id)
        for ap in [a for a in rollout.aps if a.state in AP_UPGRADING]:
            self._poll(db, rollout, ap)
        self._halt_on_failures(db, rollout)
        db.refresh(rollout)  # a cancel may have come in meanwhile
        if rollout.status in ROLLOUT_RUNNING:
            for ap in self._next_aps(rollout):
                self._start(db, rollout, ap)
                if self._halt_on_failures(db, rollout):  # one refused at once counts before the next is asked
                    break
        if rollout.status not in ROLLOUT_RUNNING:
            for ap in rollout.aps:
                if ap.ended_at is None and ap.state not in AP_UPGRADING:
                    self._end(ap, "not_started", f"the rollout was {rollout.status} first")
            self._commit(db, rollout_id)
        self._maybe_finish(db, rollout)

    def _halt_on_failures(self, db: Session, rollout: Rollout) -> bool:
        """Halt a running rollout once max_failures APs failed or rolled back; True if it asks no more APs now
        (halted, or cancelled meanwhile)."""
        failures = sum(1 for a in rollout.aps if a.state in FAILURES)
        if rollout.status in ROLLOUT_RUNNING and failures >= rollout.max_failures:
            self._set_status(db, rollout, "halted", f"{failures} APs failed (max_failures {rollout.max_failures}): "
                                                    "no more APs are asked")
        return rollout.status not in ROLLOUT_RUNNING

    def _next_aps(self, rollout: Rollout) -> list[RolloutAp]:
        """The APs to ask now: pending or offline ones of the first stage, then of the rest once no first-stage AP
        is pending or upgrading, keeping at most `parallel` APs upgrading in the rest."""
        waiting = [a for a in rollout.aps if a.ended_at is None and a.state in ("pending", "offline")]
        first_busy = any(a.stage == 1 and a.state in ("pending", *AP_UPGRADING) for a in rollout.aps)
        chosen = [a for a in waiting if a.stage == 1]
        if not first_busy:
            room = rollout.parallel - sum(1 for a in rollout.aps if a.stage > 1 and a.state in AP_UPGRADING)
            chosen += [a for a in waiting if a.stage > 1][:max(room, 0)]
        return chosen

    def _poll(self, db: Session, rollout: Rollout, ap: RolloutAp) -> None:
        now = self.clock()
        version = rollout.firmware.version
        try:
            info = self.controllers.get_agent(ap.agent_id)
        except ControllerError as exc:
            if exc.not_found:
                self._end(ap, "failed", "the WiFi controller no longer knows this AP")
                self._failed_event(db, rollout, ap)
                self._commit(db, rollout.id)
                return
            info = {}  # not answered now: only the deadline below applies
        upgrade = info.get("upgrade") or {}
        if upgrade.get("version") == version and upgrade.get("state"):
            state, reason = str(upgrade["state"]), str(upgrade.get("reason") or "")[:500]
            if state in ENDS:
                self._end(ap, state, reason)
                if state in FAILURES:
                    self._failed_event(db, rollout, ap)
            elif state != ap.state and state in AP_UPGRADING:
                ap.state, ap.reason, ap.updated_at = state, reason, now
        deadline = (ap.requested_at or now) + dt.timedelta(seconds=rollout.timeout_s + GRACE_S)
        if ap.ended_at is None and now > deadline:
            self._end(ap, "failed", f"no end reported within {rollout.timeout_s + GRACE_S} s (timeout_s + "
                                    f"{GRACE_S} s); last state {ap.state}")
            self._failed_event(db, rollout, ap)
        self._commit(db, rollout.id)

    def _start(self, db: Session, rollout: Rollout, ap: RolloutAp) -> None:
        """Ask one AP, as the contract's GET of the AP shows it now (version, connected)."""
        now = self.clock()
        image = rollout.firmware
        agent: dict[str, Any] | None = None
        try:
            agent = self.controllers.get_agent(ap.agent_id)
        except ControllerError as exc:
            if not exc.not_found:
                ap.reason = f"asked again next round: {exc.message}"[:500]  # the controller did not answer
                self._commit(db, rollout.id)
                return
        if agent is None:
            self._end(ap, "failed", "the WiFi controller does not know this AP")
            self._failed_event(db, rollout, ap)
        elif agent.get("firmware_version") == image.version:
            self._end(ap, "skipped", f"already on {image.version}")
        elif not agent.get("connected", False):
            self._offline(rollout, ap, now)
        else:
            body = {"version": image.version, "kind": image.kind, "sha256": image.sha256,
                    "signature": image.signature, "timeout_s": rollout.timeout_s,
                    "url": fw.download_url(self.base_url, image.id, image.download_token)}
            ap.from_version = agent.get("firmware_version")
            try:
                self.controllers.request_upgrade(ap.agent_id, body)
                self._requested(ap, now)
            except ControllerError as exc:
                self._refused(db, rollout, ap, exc, now)
        self._commit(db, rollout.id)

    def _refused(self, db: Session, rollout: Rollout, ap: RolloutAp, exc: ControllerError, now: dt.datetime) -> None:
        if exc.status == 503 or exc.code in ("agent_unreachable", "not_connected"):
            self._offline(rollout, ap, now)
        elif exc.status == 409:
            # Ours already (this rollout asked, and its record of that was lost to a crash or a lease takeover)?
            try:
                upgrade = self.controllers.get_agent(ap.agent_id).get("upgrade") or {}
            except ControllerError:
                return  # ask again next round
            if upgrade.get("version") == rollout.firmware.version and upgrade.get("state") in AP_UPGRADING:
                self._requested(ap, now)
            else:
                self._end(ap, "failed", f"another upgrade is in progress on this AP ({upgrade.get('version')})")
                self._failed_event(db, rollout, ap)
        elif exc.unanswered or exc.status >= 500:
            ap.reason = f"asked again next round: {exc.message}"[:500]  # the controller itself did not answer
        else:
            self._end(ap, "failed", f"refused by the WiFi controller: {exc.message}")
            self._failed_event(db, rollout, ap)

    def _requested(self, ap: RolloutAp, now: dt.datetime) -> None:
        ap.state, ap.reason, ap.requested_at, ap.updated_at = "requested", "", now, now
        ap.attempts += 1

    def _offline(self, rollout: Rollout, ap: RolloutAp, now: dt.datetime) -> None:
        ap.offline_since = ap.offline_since or now
        until = ap.offline_since + dt.timedelta(seconds=rollout.retry_offline_s)
        if now >= until:
            self._end(ap, "offline", f"not connected within retry_offline_s ({rollout.retry_offline_s} s)")
        else:
            ap.state, ap.updated_at = "offline", now
            ap.reason = f"not connected; asked again once it is, until {until.isoformat(timespec='seconds')}Z"

    def _end(self, ap: RolloutAp, state: str, reason: str) -> None:
        now = self.clock()
        ap.state, ap.reason, ap.updated_at, ap.ended_at = state, reason[:500], now, now

    def _failed_event(self, db: Session, rollout: Rollout, ap: RolloutAp) -> None:
        event(db, "rollout", f"rollout {rollout.id}: {ap.agent_id} {ap.state} upgrading to "
                             f"{rollout.firmware.version}: {ap.reason}", level="warning")

    def _set_status(self, db: Session, rollout: Rollout, status: str, reason: str) -> None:
        """Change a running rollout's status (conditional: a cancel that came first stays)."""
        result = db.execute(update(Rollout).where(Rollout.id == rollout.id, Rollout.status.in_(ROLLOUT_RUNNING))
                            .values(status=status, reason=reason[:500]).execution_options(synchronize_session=False))
        if result.rowcount == 1:  # type: ignore[attr-defined]
            level = "warning" if status == "halted" else "info"
            event(db, "rollout", f"rollout {rollout.id} {status}: {reason}", level=level)
        self._commit(db, rollout.id)
        db.refresh(rollout)

    def _maybe_finish(self, db: Session, rollout: Rollout) -> None:
        if any(a.ended_at is None for a in rollout.aps):
            return
        counts: dict[str, int] = {}
        for ap in rollout.aps:
            counts[ap.state] = counts.get(ap.state, 0) + 1
        summary = ", ".join(f"{n} {state}" for state, n in sorted(counts.items()))
        if rollout.status in ROLLOUT_RUNNING:
            self._set_status(db, rollout, "finished", summary)
        else:
            event(db, "rollout", f"rollout {rollout.id} ({rollout.status}) has no AP upgrading any more: {summary}")
        rollout.finished_at = self.clock()
        self._commit(db, rollout.id)
