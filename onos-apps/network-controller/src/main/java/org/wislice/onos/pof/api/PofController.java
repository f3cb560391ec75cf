package org.wislice.onos.pof.api;

import org.onosproject.net.DeviceId;
import org.wislice.onos.pof.channel.PofSession;

import java.util.Map;
import java.util.Optional;

/** The POF switch connections of this controller instance, by ONOS device id. */
public interface PofController {

    /** Sessions that finished the handshake. */
    Map<DeviceId, PofSession> switches();

    Optional<PofSession> session(DeviceId deviceId);

    void addListener(PofSwitchListener listener);

    void removeListener(PofSwitchListener listener);

    /** The ONOS device id of a POF dev_id: "pof:" and 8 hex digits. */
    static DeviceId deviceId(long devId) {
        return DeviceId.deviceId(String.format("pof:%08x", devId));
    }
}
