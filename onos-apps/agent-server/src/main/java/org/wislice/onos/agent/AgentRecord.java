package org.wislice.onos.agent;

/**
 * An agent as its controller records it (the WiFi controller's agents, the NFV controller's MEC nodes): whether
 * it is connected, from where, to which controller node, and the software, capabilities and (optional, from an
 * ap-agent that reports it) firmware version of its last hello.
 *
 * @param <C> the role's capabilities (ApCapabilities, MecCapabilities)
 */
public final class AgentRecord<C> extends AgentValue {

    final String agentId;
    final boolean connected;
    final String address;
    final String controllerNode;
    final String software;
    final C capabilities;
    final double lastSeen;
    final String firmwareVersion;

    public AgentRecord(String agentId, boolean connected, String address, String controllerNode, String software,
                       C capabilities, double lastSeen) {
        this(agentId, connected, address, controllerNode, software, capabilities, lastSeen, null);
    }

    /** @param firmwareVersion the hello's firmware_version, null when it had none */
    public AgentRecord(String agentId, boolean connected, String address, String controllerNode, String software,
                       C capabilities, double lastSeen, String firmwareVersion) {
        this.firmwareVersion = firmwareVersion;
        this.agentId = agentId;
        this.connected = connected;
        this.address = address;
        this.controllerNode = controllerNode;
        this.software = software;
        this.capabilities = capabilities;
        this.lastSeen = lastSeen;
    }

    public String agentId() {
        return agentId;
    }

    public boolean connected() {
        return connected;
    }

    public C capabilities() {
        return capabilities;
    }

    /** The firmware version of its last hello, or null. */
    public String firmwareVersion() {
        return firmwareVersion;
    }

    /** This agent, its connection closed at now (s since the epoch). */
    public AgentRecord<C> disconnected(double now) {
        return new AgentRecord<>(agentId, false, address, controllerNode, software, capabilities, now,
                                 firmwareVersion);
    }

    /** This agent with other capabilities (a radio's new channel or capacity); a new object only if they differ. */
    public AgentRecord<C> withCapabilities(C changed) {
        return changed.equals(capabilities) ? this
                : new AgentRecord<>(agentId, connected, address, controllerNode, software, changed, lastSeen,
                                    firmwareVersion);
    }

    @Override
    protected Object[] fields() {
        return new Object[] {agentId, connected, address, controllerNode, software, capabilities, lastSeen,
                             firmwareVersion};
    }
}
