package org.wislice.onos.mobility.api;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.List;

/** The handovers this controller node followed: a slice client's downlink moved to the AP it associated with. */
public interface ClientMobilityService {

    /**
     * The last handovers (oldest first, at most 256): {mac, slice_id, agent_id, vap_id, branch_id,
     * path_switch_ms (the association event's arrival at this node to the switch's confirmation),
     * switch_confirm_ms (the network controller's placeClient alone), kicked
     * (agents whose stale association was removed), error (null when it worked), at_ms}.
     */
    List<ObjectNode> handovers();
}
