"""The upgrade contract's side of the fake WiFi controller (issue 18), mixed into FakeControllers: each AP has a
firmware_version and an "upgrade" record, and a test scripts how each AP's upgrade goes (`plan_upgrade`):

- "good": requested -> downloading -> verifying -> installing -> restarting -> done (one step per GET of the AP),
  then the AP runs the new version;
- ("fail", reason): failed with the reason once it got to verifying (a bad checksum or signature, say);
- "rollback": restarting, then rolled_back ("not back within timeout_s"), the old version kept;
- "hang": restarting forever (the AP never comes back and nothing is reported).

An AP that is not connected (`set_connected`) answers 503, one upgrading 409, as the contract says.
"""

from __future__ import annotations

import time
from typing import Any

from wislice_orchestrator.controllers.base import ControllerError, Json

STEPS = ("requested", "downloading", "verifying", "installing", "restarting")
ENDS = ("done", "failed", "rolled_back")


class FakeFirmware:
    # FakeControllers' own, which also counts each call and injects failures (_enter)
    agents: dict[str, Json]
    lock: Any
    _enter: Any

    def init_firmware(self, version: str = "1.0") -> None:
        self.plans: dict[str, Any] = {}
        self.upgrades: dict[str, Json] = {}
        self.upgrade_requests: list[tuple[str, Json]] = []
        for agent in self.agents.values():
            agent["firmware_version"] = version

    def plan_upgrade(self, agent_id: str, plan: Any) -> None:
        self.plans[agent_id] = plan

    def set_connected(self, agent_id: str, connected: bool) -> None:
        self.agents[agent_id]["connected"] = connected

    def request_upgrade(self, agent_id: str, body: Json) -> Json:
        with self.lock:
            self._enter("request_upgrade")
            agent = self.agents.get(agent_id)
            if agent is None:
                raise ControllerError(404, "not_found", f"agent {agent_id} not found")
            if not agent["connected"]:
                raise ControllerError(503, "agent_unreachable", f"agent {agent_id} is not connected")
            current = self.upgrades.get(agent_id)
            if current is not None and current["state"] not in ENDS:
                raise ControllerError(409, "busy", f"an upgrade to {current['version']} is in progress")
            self.upgrade_requests.append((agent_id, dict(body)))
            self.upgrades[agent_id] = {"version": body["version"], "state": "requested", "reason": "",
                                       "updated_ms": int(time.time() * 1000)}
            return {"state": "requested"}

    def get_agent(self, agent_id: str) -> Json:
        with self.lock:
            self._enter("get_agent")
            agent = self.agents.get(agent_id)
            if agent is None:
                raise ControllerError(404, "not_found", f"agent {agent_id} not found")
            upgrade = self.upgrades.get(agent_id)
            if upgrade is not None and upgrade["state"] not in ENDS:
                self._step(agent, upgrade)
            reply = dict(agent, radios=[dict(r) for r in agent["radios"]])
            if upgrade is not None:
                reply["upgrade"] = dict(upgrade)
            return reply

    def _step(self, agent: Json, upgrade: Json) -> None:
        plan = self.plans.get(agent["agent_id"], "good")
        state = upgrade["state"]
        if isinstance(plan, tuple) and plan[0] == "fail" and state == "verifying":
            upgrade.update(state="failed", reason=plan[1])
        elif state == "restarting":
            if plan == "good":
                upgrade["state"] = "done"
                agent["firmware_version"] = upgrade["version"]
            elif plan == "rollback":
                upgrade.update(state="rolled_back", reason="not back on the new version within timeout_s: the "
                                                           "previous version was restored")
        else:
            upgrade["state"] = STEPS[STEPS.index(state) + 1]
        upgrade["updated_ms"] = int(time.time() * 1000)
