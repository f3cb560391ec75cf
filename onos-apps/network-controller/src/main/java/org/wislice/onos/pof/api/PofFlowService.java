package org.wislice.onos.pof.api;

import com.fasterxml.jackson.databind.JsonNode;
import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.FlowId;

import java.util.List;

/**
 * Raw POF flow entries through ONOS (operators, tools and the flow-install benchmark): each entry becomes an
 * ONOS FlowRule carrying its POF match and instructions as extensions, installed through FlowRuleService.
 */
public interface PofFlowService {

    /**
     * Installs entries on one switch as one operation and waits until the switch confirmed them.
     * Each entry is {"table_id", "priority", "matches": [match_x], "instructions": [instruction]} in the
     * spec/pof JSON notation.
     */
    List<FlowId> addFlows(DeviceId deviceId, JsonNode entries);

    /** Removes every raw entry this service put on the switch; returns how many. */
    int removeFlows(DeviceId deviceId);
}
