package org.wislice.onos.nfv.api;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.event.AbstractEvent;

/** Something changed on a MEC node: the subject is the node record, a VnfState (+ "node"), or a stats sample. */
public class NfvEvent extends AbstractEvent<NfvEvent.Type, ObjectNode> {

    public enum Type {
        NODE_UPDATED, NODE_REMOVED, VNF_UPDATED, VNF_REMOVED, STATS
    }

    public NfvEvent(Type type, ObjectNode subject) {
        super(type, subject);
    }

    public NfvEvent(Type type, ObjectNode subject, long timeMs) {
        super(type, subject, timeMs);
    }
}
