"""Runs operations (sagas) from their journal in the database, one at a time on a worker thread.

Each step is journalled as started before its controller call and done after it, so after a crash the
orchestrator knows exactly what may exist. A run of create_vap/create_vnf steps makes its controller calls at once
(on pool threads that touch no database); everything else goes one step at a time. Create-type operations roll
back on failure or restart; delete-type operations roll forward (their steps are idempotent: "not found" counts
as done).

Several instances may share the database (lease.py): an operation runs only under its lease, which the keeper
thread renews and every journal write checks. The same keeper takes over operations whose lease expired (their
instance died) through `recover`, the one recovery path, which also serves a start.
"""

from __future__ import annotations

import datetime as dt
import logging
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from . import history, lease
from .controllers import ControllerError, Controllers
from .lease import LeaseLost, LeaseTerms
from .models import ACTIVE_STATES, Event, Operation, utcnow
from .steps import CONCURRENT, DO, UNDO, step_label

log = logging.getLogger(__name__)

# Operation kinds whose interruption is finished rather than undone.
ROLL_FORWARD = {"delete_slice", "remove_vap", "remove_vnf"}
UNDO_RETRY_S = 120.0  # how long an undo waits for a controller that does not answer (an ONOS restart: ~30 s)
__all__ = ["ACTIVE_STATES", "ROLL_FORWARD", "SagaRunner"]

Hook = Callable[[Session, Operation], None]


class SagaRunner:
    def __init__(self, session_factory: sessionmaker[Session], controllers: Controllers,
                 on_success: Hook, on_failure: Hook, observe: Callable[[Operation, float], None] | None = None,
                 step_hook: Callable[[Operation, dict[str, Any]], None] | None = None,
                 terms: LeaseTerms | None = None, retention: history.Retention | None = None) -> None:
        self.session_factory = session_factory
        self.controllers = controllers
        self.on_success = on_success
        self.on_failure = on_failure
        self.observe = observe
        # Called after every journalled step (tests use it to simulate a crash at a given step).
        self.step_hook = step_hook
        self.queue: queue.Queue[int | None] = queue.Queue()
        self.thread: threading.Thread | None = None
        self.idle = threading.Event()
        self.idle.set()
        self.terms = terms or LeaseTerms(lease.generated_instance_id())
        self.clock: Callable[[], dt.datetime] = utcnow  # tests move it instead of waiting for a lease to expire
        # Operations queued or running here: the keeper renews their leases and never takes them over again.
        self.mine: set[int] = set()
        self.mine_lock = threading.Lock()
        self.keeper: threading.Thread | None = None
        self.keeper_stop = threading.Event()
        self.retention = retention or history.Retention()
        self.pruned_at = 0.0  # time.monotonic() of the last prune

    # --- worker -------------------------------------------------------------------------------------------
    def start(self) -> None:
        if self.thread is None:
            self.thread = threading.Thread(target=self._work, name="wislice-saga", daemon=True)
            self.thread.start()
        if self.keeper is None:
            self.keeper_stop.clear()
            self.keeper = threading.Thread(target=self._keep, name="wislice-lease", daemon=True)
            self.keeper.start()

    def stop(self) -> None:
        self.stop_keeper()
        if self.thread is not None:
            self.queue.put(None)
            self.thread.join(timeout=10)
            self.thread = None

    def stop_keeper(self) -> None:
        """No more renewing or taking over (the worker keeps running: tests stop only this to stand for a crash)."""
        if self.keeper is not None:
            self.keeper_stop.set()
            self.keeper.join(timeout=10)
            self.keeper = None

    def claim(self, op: Operation) -> None:
        """Lease a new operation to this instance (before it is committed; it is submitted here after)."""
        lease.claim(op, self.terms, self.clock())

    def submit(self, op_id: int) -> None:
        with self.mine_lock:
            self.mine.add(op_id)
        self.idle.clear()
        self.queue.put(op_id)
        if self.thread is None:  # no worker (some unit tests): run now, in the caller's thread
            self._drain()

    def wait_idle(self, timeout: float = 10.0) -> bool:
        return self.idle.wait(timeout)

    def _drain(self) -> None:
        while not self.queue.empty():
            op_id = self.queue.get()
            if op_id is not None:
                self.run(op_id)
        self.idle.set()

    def _work(self) -> None:
        while True:
            op_id = self.queue.get()
            if op_id is None:
                return
            try:
                self.run(op_id)
            except Exception:  # the worker must survive anything one operation does
                log.exception("operation %s crashed the runner", op_id)
            if self.queue.empty():
                self.idle.set()

    # --- leases and recovery -------------------------------------------------------------------------------
    def _keep(self) -> None:
        """Every renew interval: renew the leases of this instance's operations, take over expired ones; every
        history.PRUNE_EVERY_S, prune the history beyond the retention."""
        while not self.keeper_stop.wait(self.terms.renew_s):
            try:
                self.renew()
                self.recover(own=False)
                if time.monotonic() - self.pruned_at >= history.PRUNE_EVERY_S:
                    self.pruned_at = time.monotonic()
                    self.prune()
            except Exception:  # a database hiccup: the next round tries again, well within the lease
                log.exception("lease keeper round failed")

    def prune(self) -> dict[str, int]:
        with self.session_factory() as db:
            gone = history.prune(db, self.retention, self.clock())
        if any(gone.values()):
            log.info("history pruned: %s", gone)
        return gone

    def renew(self) -> list[int]:
        """Renew the lease of every operation queued or running here; returns those another instance took."""
        with self.mine_lock:
            ids = sorted(self.mine)
        lost = []
        with self.session_factory() as db:
            for op_id in ids:
                if not lease.renew(db, self.terms, op_id, self.clock()):
                    lost.append(op_id)
            db.commit()
        for op_id in lost:
            log.warning("operation %s: its lease is held by another instance now; this one leaves it", op_id)
        return lost

    def recover(self, own: bool = True) -> list[int]:
        """Take over and queue every active operation nobody runs: at a start (`own`), those this instance id
        held before too; afterwards, those whose lease expired. Running create-type ones roll back."""
        now = self.clock()
        ids = []
        with self.session_factory() as db:
            found = db.execute(select(Operation.id, Operation.lease_owner)
                               .where(Operation.status.in_(ACTIVE_STATES), lease.takeable(self.terms, now, own))
                               .order_by(Operation.id)).all()
            for op_id, owner in found:
                with self.mine_lock:
                    if op_id in self.mine:
                        continue
                if not lease.take(db, self.terms, op_id, now, own):
                    db.rollback()
                    continue  # another instance was faster
                op = db.get(Operation, op_id, populate_existing=True)
                assert op is not None
                why = ("an orchestrator restart" if owner in (None, self.terms.owner)
                       else f"orchestrator instance {owner} (its lease expired: it crashed or lost the database)")
                if op.status == "running" and op.kind not in ROLL_FORWARD and not committed(op.steps):
                    op.status = "rolling_back"
                    op.error = op.error or f"interrupted by {why}; rolling back"
                doing = "rolling back" if op.status == "rolling_back" else "finishing"
                db.add(Event(kind="recovery", tenant_id=op.tenant_id, level="warn",
                             message=f"operation {op.id} ({op.kind}) was interrupted by {why}; instance "
                                     f"{self.terms.owner} is {doing} it"))
                db.commit()
                ids.append(op.id)
        for op_id in ids:
            self.submit(op_id)
        return ids

    # --- one operation ------------------------------------------------------------------------------------
    def run(self, op_id: int) -> None:
        started = time.monotonic()
        try:
            with self.session_factory() as db:
                # Queued here, but another instance may have taken it over meanwhile (this one stalled).
                if not lease.take(db, self.terms, op_id, self.clock()):
                    return
                db.commit()
                op = db.get(Operation, op_id, populate_existing=True)
                if op is None or op.status not in ACTIVE_STATES:
                    return
                if op.status == "rolling_back":
                    self._rollback(db, op)
                else:
                    self._forward(db, op)
                if self.observe:
                    self.observe(op, time.monotonic() - started)
        except LeaseLost:
            log.warning("operation %s: taken over by another instance; this one stops running it", op_id)
        finally:
            with self.mine_lock:
                self.mine.discard(op_id)

    def _hold(self, db: Session, op: Operation) -> None:
        """Renew the lease in the transaction about to be committed, or give the operation up: the journal is
        written only while this instance holds the lease."""
        if not lease.renew(db, self.terms, op.id, self.clock()):
            db.rollback()
            raise LeaseLost(op.id)
        db.commit()

    def _save(self, db: Session, op: Operation, steps: list[dict[str, Any]]) -> None:
        op.steps = [dict(s) for s in steps]  # a new list, so SQLAlchemy sees the JSON change
        op.updated_at = utcnow()
        self._hold(db, op)

    def _forward(self, db: Session, op: Operation) -> None:
        op.status = "running"
        steps = [dict(s) for s in op.steps]
        self._save(db, op, steps)
        i = 0
        while i < len(steps):
            run = self._concurrent_run(steps, i)
            i += max(len(run), 1)
            if not run:
                continue
            for step in run:
                step["state"] = "started"
                step["started_at"] = time.time()
                self._save(db, op, steps)
                if self.step_hook:
                    self.step_hook(op, step)
            self._hold(db, op)  # still this instance's, right before the controller calls
            failed = self._do(db, run)
            if failed is not None:
                step, exc = failed
                op.error = f"step '{step_label(step)}' failed: {exc}"[:1000]
                self._save(db, op, steps)
                if op.kind in ROLL_FORWARD or committed(steps):
                    self._finish(db, op, "failed")
                else:
                    op.status = "rolling_back"
                    self._save(db, op, steps)
                    self._rollback(db, op)
                return
            self._save(db, op, steps)
        self._finish(db, op, "succeeded")

    @staticmethod
    def _concurrent_run(steps: list[dict[str, Any]], i: int) -> list[dict[str, Any]]:
        """The steps to start at i: a done step none; a run of steps of CONCURRENT kinds all; else the one."""
        if steps[i]["state"] == "done":
            return []
        run = [steps[i]]
        if steps[i]["kind"] in CONCURRENT:
            for step in steps[i + 1:]:
                if step["state"] == "done" or step["kind"] not in CONCURRENT:
                    break
                run.append(step)
        return run

    def _do(self, db: Session, run: list[dict[str, Any]]) -> tuple[dict[str, Any], Exception] | None:
        """Does the started steps of a run, their controller calls at once when there are several; every step
        ends done or failed. Returns the first failure in journal order, or None."""
        outcomes: list[Any] = []
        if len(run) == 1:
            try:
                outcomes.append(DO[run[0]["kind"]](self.controllers, db, run[0]["ref"]))
            except Exception as exc:  # any failure of a step fails the operation, with its message kept
                outcomes.append(exc)
        else:
            calls: list[Any] = []
            for step in run:
                try:
                    calls.append(CONCURRENT[step["kind"]][0](self.controllers, db, step["ref"]))
                except Exception as exc:
                    calls.append(exc)
            with ThreadPoolExecutor(max_workers=len(run), thread_name_prefix="wislice-step") as pool:
                futures = [None if isinstance(c, Exception) else pool.submit(_timed, c) for c in calls]
            for step, call, future in zip(run, calls, futures, strict=True):
                if future is None:
                    outcomes.append(call)
                    continue
                reply, seconds, error = future.result()
                if error is not None:
                    outcomes.append(error)
                    continue
                try:
                    outcomes.append(CONCURRENT[step["kind"]][1](db, step["ref"], reply))
                    db.commit()  # kept whatever fails beside it (a failure rolls back the session)
                    step["seconds"] = round(seconds, 6)
                except Exception as exc:
                    db.rollback()
                    outcomes.append(exc)
        failed = None
        for step, outcome in zip(run, outcomes, strict=True):
            if isinstance(outcome, Exception):
                db.rollback()
                step["state"] = "failed"
                step["error"] = str(outcome)[:500]
                failed = failed or (step, outcome)
            else:
                step["result"] = outcome
                step["state"] = "done"
                step.setdefault("seconds", round(time.time() - step["started_at"], 6))
        return failed

    def _rollback(self, db: Session, op: Operation) -> None:
        steps = [dict(s) for s in op.steps]
        problems = []
        for step in reversed(steps):
            if step["state"] not in ("started", "done", "failed"):
                continue
            try:
                _until_answered(lambda step=step: UNDO[step["kind"]](self.controllers, db, step["ref"]))
                step["state"] = "undone"
            except Exception as exc:  # keep undoing the rest; report what could not be undone
                db.rollback()
                step["undo_error"] = str(exc)[:500]
                problems.append(f"{step_label(step)}: {exc}")
            self._save(db, op, steps)
        if problems:
            op.error = (op.error + " | rollback incomplete: " + "; ".join(problems))[:1000]
        self._finish(db, op, "failed")

    def _finish(self, db: Session, op: Operation, status: str) -> None:
        op.status = status
        op.finished_at = dt.datetime.now(dt.UTC).replace(tzinfo=None)
        (self.on_success if status == "succeeded" else self.on_failure)(db, op)
        self._hold(db, op)


def committed(steps: list[dict[str, Any]]) -> bool:
    """A step marked `commit` is done: the operation is past its point of no return and is finished rather than
    undone (a vNF follow once the slice's path leads to the new chain: vnf_follow.py)."""
    return any(s["state"] == "done" and s["ref"].get("commit") for s in steps)


def _until_answered(call: Callable[[], Any]) -> Any:
    """Runs an undo, again while the controller does not answer (restarting) for up to UNDO_RETRY_S: given up at
    once, it would leave the step's vAP, vNF or path behind on a controller that is back seconds later."""
    deadline = time.monotonic() + UNDO_RETRY_S
    delay = 0.5
    while True:
        try:
            return call()
        except ControllerError as exc:
            if not exc.unanswered or time.monotonic() + delay > deadline:
                raise
        time.sleep(delay)
        delay = min(delay * 2, 5.0)


def _timed(call: Callable[[], Any]) -> tuple[Any, float, Exception | None]:
    """Runs one controller call on a pool thread: (reply, seconds, the exception it raised or None)."""
    started = time.time()
    try:
        return call(), time.time() - started, None
    except Exception as exc:
        return None, time.time() - started, exc
