"""Application factory: settings, database (migrated at start), controllers, saga runner, REST, dashboard."""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask, g
from sqlalchemy import func, select

from . import auth, db, errors, guards, history, lease
from . import firmware as fw
from .api import firmware, infra, slices, tenants, tokens
from .api.common import register_converters
from .api_spec import WiSliceApi
from .config import from_environment
from .controllers import Controllers
from .controllers.rest import RestControllers
from .dashboard import blp as dashboard_blp
from .latency_budget import LatencyCosts
from .latency_watch import LatencyWatch
from .metrics import Metrics
from .models import ApiToken, Slice
from .policy import PolicyEngine
from .radio_watch import RadioWatch
from .rollout import RolloutRunner
from .service import SliceService
from .telemetry import TelemetryCollector
from .vnf_follow import connect as connect_vnf_follow

log = logging.getLogger(__name__)


def make_controllers(settings: dict[str, Any]) -> Controllers:
    """The controllers the settings name; tests pass their own to create_app instead."""
    kind = settings["CONTROLLERS"]
    if kind == "rest":
        return RestControllers(settings["ONOS_URL"], settings["ONOS_USER"], settings["ONOS_PASSWORD"],
                               settings["ONOS_TIMEOUT_S"])
    raise ValueError(f"WISLICE_CONTROLLERS must be rest, not {kind!r}")


def _bootstrap(session_factory: Any, settings: dict[str, Any]) -> None:
    """Store the configured bootstrap operator token (hashed, without expiry). A value not stored yet rotates it:
    the token of the previous value is revoked. A value whose token was revoked is not brought back."""
    token = settings["BOOTSTRAP_OPERATOR_TOKEN"]
    if not token:
        return  # an unset value leaves a stored bootstrap token alone: it may have been set for the first start only
    if len(token) < 24:
        raise ValueError("WISLICE_BOOTSTRAP_OPERATOR_TOKEN must be at least 24 characters")
    with session_factory() as session:
        stored = session.scalar(select(ApiToken).where(ApiToken.token_hash == auth.hash_token(token)))
        if stored is not None:
            if stored.revoked_at is not None:
                log.warning("WISLICE_BOOTSTRAP_OPERATOR_TOKEN names a revoked token: set a new value to rotate it")
            return
        # Only the bootstrap token has no expiry (models.ApiToken.expires_at): those are the previous values.
        previous = select(ApiToken).where(ApiToken.role == "operator", ApiToken.expires_at.is_(None),
                                          ApiToken.revoked_at.is_(None))
        for old in session.scalars(previous):
            old.revoked_at = auth.now()
            log.warning("bootstrap operator token rotated: token %s revoked", old.id)
        auth.issue(session, "operator", None, "bootstrap", plain=token, ttl_s=None)
        session.commit()


def create_app(test_config: dict[str, Any] | None = None, controllers: Controllers | None = None) -> Flask:
    app = Flask(__name__, static_folder=None)  # the dashboard blueprint serves the static files
    settings = from_environment()
    settings.update(test_config or {})
    app.config.update(settings)
    app.config.update(
        API_TITLE="WiSlice orchestrator", API_VERSION="1.0.0", OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/api/v1", OPENAPI_JSON_PATH="openapi.json",
        API_SPEC_OPTIONS={
            "info": {"description": "Tenant and operator API of WiSlice: end-to-end slices over WiFi APs, a POF "
                                    "wired network and MEC nodes (ADE2WiNFV Table I as resources)."},
            "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
            "security": [{"bearer": []}],
        },
    )
    terms = lease.terms_from(app.config)  # invalid lease settings fail here, before the database is touched
    retention = history.retention_from(app.config)
    app.config["INSTANCE_ID"] = terms.owner
    engine, box = db.open_database(app.config)
    session_factory = db.make_session_factory(engine, box)
    ctl = controllers or make_controllers(settings)
    metrics = Metrics()
    service = SliceService(session_factory, ctl, app.config["AP_BUDGET_KBPS"], metrics, terms, retention,
                           LatencyCosts.parse(app.config["LATENCY_COSTS"]))
    app.extensions["wislice"] = service
    app.extensions["wislice_engine"] = engine

    def slice_counts() -> dict[str, int]:
        with session_factory() as s:
            return {str(k): int(v) for k, v in s.execute(select(Slice.status, func.count()).group_by(Slice.status))}

    metrics.add_slice_gauge(slice_counts)
    telemetry = TelemetryCollector(session_factory, ctl, app.config["TELEMETRY_INTERVAL_S"],
                                   app.config["TELEMETRY_WINDOW_S"], app.config["TELEMETRY_MAX_SLICES"],
                                   app.config["TELEMETRY_MAX_CLIENTS"])
    app.extensions["wislice_telemetry"] = telemetry
    service.measured_vnf_us = lambda: telemetry.snapshot().vnf_proc_p99_us  # latency admission's measured costs
    service.measured_switch_us = telemetry.measured_switch_us
    policies = PolicyEngine(session_factory, service)
    app.extensions["wislice_policies"] = policies
    telemetry.observers.append(policies.observe)
    latency_watch = LatencyWatch(session_factory)  # a latency slice's measured p99 against its budget (events)
    app.extensions["wislice_latency_watch"] = latency_watch
    telemetry.observers.append(latency_watch.observe)
    radio_watch = None  # load balancing: clients steered off a radio whose guarantees with clients no longer fit
    if app.config["RADIO_WATCH"]:
        radio_watch = RadioWatch(session_factory, ctl, app.config["AP_BUDGET_KBPS"],
                                 app.config["RADIO_WATCH_SAMPLES"], app.config["RADIO_WATCH_HOLD_S"])
        telemetry.observers.append(radio_watch.observe)
    app.extensions["wislice_radio_watch"] = radio_watch
    app.extensions["wislice_vnf_follow"] = connect_vnf_follow(radio_watch, service, app.config["VNF_FOLLOW_HOLD_S"])
    metrics.add_telemetry(telemetry)
    _bootstrap(session_factory, settings)
    app.extensions["wislice_firmware_keys"] = fw.load_keys(app.config["FIRMWARE_KEYS"])  # a bad key stops the start
    rollouts = RolloutRunner(session_factory, ctl, terms, app.config["FIRMWARE_BASE_URL"],
                             app.config["ROLLOUT_POLL_S"])
    app.extensions["wislice_rollouts"] = rollouts

    @app.before_request
    def _open_session() -> None:
        g.db = session_factory()
        auth.load_principal(g.db)

    @app.teardown_request
    def _close_session(_exc: BaseException | None) -> None:
        session = g.pop("db", None)
        if session is not None:
            session.close()

    metrics.init_app(app)
    guards.init_app(app)  # after the caller is loaded (_open_session) and the request timer started
    api = WiSliceApi(app)
    register_converters(app, api)
    for blp in (tenants.blp, tokens.blp, slices.blp, infra.blp, firmware.blp):
        api.register_blueprint(blp)
    errors.init_app(app)  # after flask-smorest, whose own HTTPException handler it replaces
    app.register_blueprint(dashboard_blp)

    if app.config["START_WORKER"]:
        service.runner.start()
        recovered = service.runner.recover()
        if recovered:
            log.warning("instance %s recovering interrupted operations %s", terms.owner, recovered)
        rollouts.start()
    if app.config["TELEMETRY"]:
        telemetry.start()
    return app
