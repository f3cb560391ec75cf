package org.wislice.onos.pof.api;

import org.onosproject.net.DeviceId;
import org.wislice.onos.pof.channel.PofSession;
import org.wislice.onos.pof.wire.PofMessage;
import org.wislice.onos.pof.wire.PortStatus;

/** Switch events for the providers. Default methods so each provider overrides only what it needs. */
public interface PofSwitchListener {

    default void switchAdded(DeviceId deviceId, PofSession session) {
    }

    default void switchRemoved(DeviceId deviceId) {
    }

    default void portChanged(DeviceId deviceId, PortStatus status) {
    }

    default void message(DeviceId deviceId, PofMessage message) {
    }
}
