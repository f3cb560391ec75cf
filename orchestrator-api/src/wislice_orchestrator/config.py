"""Settings: defaults, then WISLICE_* environment variables, then the test overrides given to create_app."""

from __future__ import annotations

import os
from typing import Any

DEFAULTS: dict[str, Any] = {
    # SQLite by default; PostgreSQL with postgresql+psycopg://user@host:port/db.
    "DATABASE_URL": "sqlite:///wislice-orchestrator.db",
    # "rest" drives the ONOS apps on ONOS_URL (the only kind; tests hand create_app their own fake controllers).
    "CONTROLLERS": "rest",
    # One ONOS node's base URL, or a cluster's nodes comma-separated: calls go to the node that answered last and
    # move on to the next only when one certainly did not reach it (controllers/nodes.py).
    "ONOS_URL": "http://127.0.0.1:8181",
    "ONOS_USER": "onos",
    "ONOS_PASSWORD": "",
    "ONOS_TIMEOUT_S": 10.0,
    # Guaranteed-bandwidth capacity of a radio whose agent reports no capacity_kbps (admission's fallback).
    "AP_BUDGET_KBPS": 200_000,
    # Latency admission's default costs, microseconds (latency_budget.py): per switch pass, per wired link, per vNF
    # by class (kernel, dpdk) or image, e.g. "switch=20,link=50,kernel=120,dpdk=30"; empty: those defaults. The
    # topology's switch_latency_us and link latency_us override the first two per element.
    "LATENCY_COSTS": "",
    # The key file passphrases are sealed under at rest (at_rest.py); empty: `<database file>.key` beside a SQLite
    # file (created 0600 at first start). A database that is not a SQLite file needs it set.
    "PASSPHRASE_KEY_FILE": "",
    # Plain token for a first operator, hashed into the database at start when no operator token exists yet.
    # Rotated by setting another value and restarting (the old one then stops working); it never expires.
    "BOOTSTRAP_OPERATOR_TOKEN": "",
    # Lifetimes of issued tokens, seconds: the default of a tenant token and of an operator token (a request may
    # ask for a shorter or a longer one), and the longest any request may ask for. A day by default: a leaked token
    # is good for a day at most, and a holder renews daily; a scraper's token may be asked for up to 30 days.
    "TOKEN_TTL_S": 24 * 3600,
    "OPERATOR_TOKEN_TTL_S": 24 * 3600,
    "TOKEN_MAX_TTL_S": 30 * 24 * 3600,
    # Start the saga worker and recover interrupted operations at app creation (off for some unit tests).
    "START_WORKER": True,
    # Several instances may share one PostgreSQL database (lease.py). Each needs its own id; empty: generated at
    # start (host name and random digits), or "local" on SQLite (one instance only). A stable id lets a restarted
    # instance take its own interrupted operations back at once instead of after their lease expires. Operations
    # run under a lease of LEASE_S seconds, renewed every LEASE_RENEW_S (LEASE_S at least twice that): an instance
    # that dies has its operations taken over by another within about LEASE_S + LEASE_RENEW_S.
    "INSTANCE_ID": "",
    "LEASE_S": 30.0,
    "LEASE_RENEW_S": 10.0,
    # History retention (history.py): ended operations, events and deleted slices are kept this long and at most
    # this many rows of each (the newest); older ones are pruned once a minute.
    "HISTORY_KEEP_S": 30 * 86400.0,
    "HISTORY_MAX_ROWS": 100_000,
    # Telemetry collector (a thread polling the controllers into in-memory series): started at app creation when
    # on; the unit tests turn it off and poll by hand. Series keep TELEMETRY_WINDOW_S of history (at most 3600
    # polls); at most TELEMETRY_MAX_SLICES slice and TELEMETRY_MAX_CLIENTS client series are kept (memory bound:
    # telemetry.py).
    "TELEMETRY": True,
    "TELEMETRY_INTERVAL_S": 2.0,
    "TELEMETRY_WINDOW_S": 900.0,
    "TELEMETRY_MAX_SLICES": 1000,
    "TELEMETRY_MAX_CLIENTS": 4000,
    # Load balancing (radio_watch.py, docs/mobility.md "Load balancing"): on, a radio whose guarantees with clients
    # exceed its reported capacity for RADIO_WATCH_SAMPLES polls in a row has clients of its slices steered to their
    # vAPs on other APs with room, at most one round per RADIO_WATCH_HOLD_S seconds per radio. Needs TELEMETRY.
    "RADIO_WATCH": True,
    "RADIO_WATCH_SAMPLES": 3,
    "RADIO_WATCH_HOLD_S": 30.0,
    # vNF follow (vnf_follow.py, docs/mobility.md "The vNF follows"): a slice's chain moves at most once per
    # VNF_FOLLOW_HOLD_S seconds. Needs RADIO_WATCH (which sees the handovers).
    "VNF_FOLLOW_HOLD_S": 30.0,
    # GET /metrics needs an operator token unless this is on (a scraper on a trusted network without a token).
    "METRICS_PUBLIC": False,
    # Largest request body, bytes (413 above it, from the Content-Length alone). The largest legitimate body is a
    # big topology (about 100 bytes a link), far below 1 MiB.
    "MAX_CONTENT_LENGTH": 1024 * 1024,
    # Fleet upgrades (issue 18; firmware.py, rollout.py). FIRMWARE_KEYS: the usign public keys uploads must be
    # signed with: a directory of key files (as OpenWrt's /etc/opkg/keys) or base64 key lines separated by commas;
    # none: every upload is refused. FIRMWARE_DIR: where artifacts are stored (default `firmware/` beside a SQLite
    # file; required otherwise). FIRMWARE_MAX_BYTES: the largest artifact (POST /firmware alone takes a body that
    # large). FIRMWARE_BASE_URL: the orchestrator as agents reach it (http://10.0.0.254:8080), for the download URL
    # a rollout gives the controller; rollouts are refused while it is empty. ROLLOUT_POLL_S: how often the rollout
    # runner asks the controller for each upgrading AP's state.
    "FIRMWARE_KEYS": "",
    "FIRMWARE_DIR": "",
    "FIRMWARE_MAX_BYTES": 64 * 1024 * 1024,
    "FIRMWARE_BASE_URL": "",
    "ROLLOUT_POLL_S": 2.0,
}

INT_KEYS = {"AP_BUDGET_KBPS", "HISTORY_MAX_ROWS", "TELEMETRY_MAX_SLICES", "TELEMETRY_MAX_CLIENTS",
            "MAX_CONTENT_LENGTH", "TOKEN_TTL_S", "FIRMWARE_MAX_BYTES", "OPERATOR_TOKEN_TTL_S", "TOKEN_MAX_TTL_S",
            "RADIO_WATCH_SAMPLES"}
FLOAT_KEYS = {"ONOS_TIMEOUT_S", "HISTORY_KEEP_S", "TELEMETRY_INTERVAL_S", "TELEMETRY_WINDOW_S", "LEASE_S",
              "LEASE_RENEW_S", "ROLLOUT_POLL_S", "RADIO_WATCH_HOLD_S", "VNF_FOLLOW_HOLD_S"}
BOOL_KEYS = {"START_WORKER", "TELEMETRY", "METRICS_PUBLIC", "RADIO_WATCH"}


def from_environment(environ: dict[str, str] | None = None) -> dict[str, Any]:
    """Read WISLICE_<KEY> for every default key, converting to the default's type."""
    environ = os.environ if environ is None else environ
    settings = dict(DEFAULTS)
    for key in DEFAULTS:
        raw = environ.get(f"WISLICE_{key}")
        if raw is None:
            continue
        if key in INT_KEYS:
            settings[key] = int(raw)
        elif key in FLOAT_KEYS:
            settings[key] = float(raw)
        elif key in BOOL_KEYS:
            settings[key] = raw.lower() in ("1", "true", "yes", "on")
        else:
            settings[key] = raw
    return settings
