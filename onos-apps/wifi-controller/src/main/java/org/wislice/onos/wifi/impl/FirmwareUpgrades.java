package org.wislice.onos.wifi.impl;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.agent.AgentController;
import org.wislice.onos.agent.AgentRecord;
import org.wislice.onos.agent.AgentRequestException;
import org.wislice.onos.agent.ControllerException;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.RestBodies;
import org.wislice.onos.agent.ap.ApCalls;
import org.wislice.onos.agent.ap.ApCapabilities;
import org.wislice.onos.agent.ap.ApCodecs;
import org.wislice.onos.agent.ap.FirmwareProgress;
import org.wislice.onos.agent.ap.FirmwareUpgrade;

import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * Fleet upgrades, the WiFi controller's part (issue 18; spec/onos-rest/README.md): an AP is asked to upgrade
 * (upgradeFirmware) and its firmwareProgress events are kept, one record per AP in the store: {version, state,
 * reason, updated_ms, timeout_s}. "requested" is the controller's own state, from the request until the agent's
 * first event. One upgrade per AP at a time: a record in progress refuses another request (409), unless it has not
 * moved for longer than its timeout_s plus STALE_MS (an agent that lost it: the agent itself still refuses a
 * second upgrade while one runs).
 */
final class FirmwareUpgrades {

    static final Set<String> IN_PROGRESS = Set.of("requested", "downloading", "verifying", "installing",
                                                  "restarting");
    /** Beyond an upgrade's timeout_s, how long a record may stay unchanged before it no longer blocks (ms). */
    static final long STALE_MS = 15 * 60 * 1000L;

    private final WifiStore store;
    private final AgentController<ApCapabilities> agents;
    private final LongSupplier clock;

    FirmwareUpgrades(WifiStore store, AgentController<ApCapabilities> agents, LongSupplier clock) {
        this.store = store;
        this.agents = agents;
        this.clock = clock;
    }

    private static ObjectNode record(String version, String state, String reason, long updatedMs, int timeoutS) {
        return Json.object().put("version", version).put("state", state).put("reason", reason)
                .put("updated_ms", updatedMs).put("timeout_s", timeoutS);
    }

    private boolean inProgress(ObjectNode upgrade) {
        long quiet = clock.getAsLong() - upgrade.path("updated_ms").asLong();
        return IN_PROGRESS.contains(upgrade.path("state").asText())
                && quiet <= upgrade.path("timeout_s").asLong() * 1000 + STALE_MS;
    }

    /** Asks the AP to upgrade; the answer once the agent accepted: {"state": "requested"}. */
    ObjectNode request(String agentId, JsonNode body) {
        FirmwareUpgrade upgrade = RestBodies.decode(ApCodecs.FIRMWARE_UPGRADE, body, "firmware");
        Optional<ObjectNode> previous;
        synchronized (this) {
            AgentRecord<ApCapabilities> agent = store.agent(agentId)
                    .orElseThrow(() -> new ControllerException("not_found", "no ap-agent " + agentId));
            previous = store.upgrade(agentId);
            if (previous.isPresent() && inProgress(previous.get())) {
                throw new ControllerException("conflict", "an upgrade to " + previous.get().path("version").asText()
                        + " is in progress on " + agentId + " (" + previous.get().path("state").asText() + ")");
            }
            if (!agent.connected()) {
                throw new ControllerException(ControllerException.NOT_CONNECTED,
                                              "ap-agent " + agentId + " is not connected");
            }
            // Before the request: the agent's first event may come before its reply.
            store.putUpgrade(agentId, record(upgrade.version(), "requested", "", clock.getAsLong(),
                                             upgrade.timeoutS()));
        }
        try {
            agents.call(agentId, ApCalls.UPGRADE_FIRMWARE, upgrade);
        } catch (ControllerException e) {
            if (AgentRequestException.TIMEOUT.equals(e.code())) {
                throw e; // it may have accepted: the record stays, its events or the stale limit decide
            }
            if (previous.isPresent()) {
                store.putUpgrade(agentId, previous.get());
            } else {
                store.removeUpgrade(agentId);
            }
            if (AgentRequestException.UNREACHABLE.equals(e.code())) {
                throw new ControllerException(ControllerException.NOT_CONNECTED, e.getMessage());
            }
            throw e;
        }
        return Json.object().put("state", "requested");
    }

    /**
     * A firmwareProgress event. It replaces the AP's record, except one of another version while that record is
     * in progress (an agent repeating its last upgrade's end after a reconnect, just as a new one was requested);
     * a repeat of the state the record has changes nothing.
     */
    void progress(String agentId, FirmwareProgress p) {
        String reason = p.reason() == null ? "" : p.reason();
        Optional<ObjectNode> previous = store.upgrade(agentId);
        int timeoutS = 0;
        if (previous.isPresent()) {
            ObjectNode prev = previous.get();
            boolean sameVersion = p.version().equals(prev.path("version").asText());
            if (!sameVersion && inProgress(prev)) {
                return;
            }
            if (sameVersion && p.state().equals(prev.path("state").asText())
                    && reason.equals(prev.path("reason").asText())) {
                return;
            }
            timeoutS = sameVersion ? prev.path("timeout_s").asInt() : 0;
        }
        store.putUpgrade(agentId, record(p.version(), p.state(), reason, clock.getAsLong(), timeoutS));
    }

    /** An agent's REST record as an AP: plus firmware_version (null if its hello had none) and upgrade, if any. */
    ObjectNode ap(String agentId, ObjectNode agent) {
        if (!agent.has("firmware_version")) {
            agent.putNull("firmware_version");
        }
        store.upgrade(agentId).ifPresent(u -> {
            ObjectNode view = u.deepCopy();
            view.remove("timeout_s");
            agent.set("upgrade", view);
        });
        return agent;
    }
}
