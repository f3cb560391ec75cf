package org.wislice.onos.pof.api;

import org.onosproject.net.DeviceId;

/**
 * Which POF switches enforce meter rates: an override per device (component property
 * {@code meterEnforcementOverrides}) wins over what the switch's FEATURES_REPLY said (the device annotation
 * {@link MeterEnforcement#ANNOTATION}); a device the controller knows nothing of does not enforce.
 */
public interface PofMeterCapabilityService {

    MeterEnforcement meterEnforcement(DeviceId deviceId);

    /**
     * Whether the switch announced latency-class meters in its FEATURES_REPLY (the device annotation
     * {@link MeterEnforcement#LATENCY_ANNOTATION}); a device the controller knows nothing of has none.
     */
    default boolean latencyMeters(DeviceId deviceId) {
        return false;
    }
}
