"""Unit-test helpers: an app over a temporary SQLite database and fake controllers, tokens for three callers."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fake_controllers import FakeControllers

from wislice_orchestrator import auth
from wislice_orchestrator.app import create_app
from wislice_orchestrator.models import Setting, Tenant


@dataclass
class World:
    app: Any
    client: Any
    fake: FakeControllers
    operator: str
    tenant_a: str
    tenant_b: str

    def headers(self, token: str | None) -> dict[str, str]:
        return {"Authorization": f"Bearer {token}"} if token else {}

    def call(self, method: str, path: str, token: str | None = None, **kw: Any) -> Any:
        return self.client.open(path, method=method, headers={**self.headers(token), **kw.pop("headers", {})}, **kw)

    @property
    def service(self) -> Any:
        return self.app.extensions["wislice"]


def slice_body(name: str = "video", agent: str = "ap-1", vnfs: int = 1, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "name": name,
        "bandwidth": {"down_guaranteed_kbps": 5000, "up_guaranteed_kbps": 1000, "down_cap_kbps": 20000,
                      "up_cap_kbps": 5000},
        "latency_class": "low",
        "vaps": [{"agent_id": agent, "radio": "phy0", "ssid": f"{name}-wifi",
                  "security": {"mode": "wpa2-psk", "passphrase": "secret-pass-1"}}],
        "vnfs": [{"image": "firewall", "cpu": 0.5, "memory_mib": 256} for _ in range(vnfs)],
    }
    body.update(extra)
    return body


_template: list[Path] = []


def _migrated_template() -> Path:
    """A database migrated once per test session; each test copies it (migrations take most of create_app)."""
    if not _template:
        tmp = Path(tempfile.mkdtemp(prefix="wislice-template-"))
        atexit.register(shutil.rmtree, tmp, True)
        app = create_app({"DATABASE_URL": f"sqlite:///{tmp}/template.db", "START_WORKER": False,
                          "TELEMETRY": False},
                         controllers=FakeControllers())
        app.extensions["wislice_engine"].dispose()
        _template.append(tmp / "template.db")
    return _template[0]


def seed_topology(app: Any, fake: FakeControllers) -> None:
    """The fake infrastructure's wired topology (a star around pof:core), unless the database has one."""
    with app.extensions["wislice"].session_factory() as db:
        if db.get(Setting, "topology") is None:
            db.add(Setting(key="topology", value=FakeControllers.default_topology(list(fake.agents),
                                                                                 list(fake.nodes))))
            db.commit()


def make_world(tmp_path: Any, **config: Any) -> World:
    fake = FakeControllers(aps=2, mec_nodes=2)
    if not (Path(tmp_path) / "test.db").exists():
        shutil.copy(_migrated_template(), Path(tmp_path) / "test.db")
    settings = {"DATABASE_URL": f"sqlite:///{tmp_path}/test.db", "START_WORKER": False, "TELEMETRY": False,
                "TESTING": True}
    settings.update(config)
    app = create_app(settings, controllers=fake)
    seed_topology(app, fake)
    factory = app.extensions["wislice"].session_factory
    with factory() as db:
        operator = auth.issue_token(db, "operator", None, "test-operator")
        db.add(Tenant(id=1, name="alpha"))
        db.add(Tenant(id=2, name="beta"))
        db.flush()
        tenant_a = auth.issue_token(db, "tenant", 1, "a")
        tenant_b = auth.issue_token(db, "tenant", 2, "b")
        db.commit()
    return World(app, app.test_client(), fake, operator, tenant_a, tenant_b)
