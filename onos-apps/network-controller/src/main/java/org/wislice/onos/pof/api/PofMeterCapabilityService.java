package org.wislice.onos.pof.api;

import org.onosproject.net.DeviceId;

/**
 * Which POF switches enforce meter rates: an override per device (component property
 * {@code meterEnforcementOverrides}) wins over what the switch's FEATURES_REPLY said (the device annotation
 * {@link MeterEnforcement#ANNOTATION}); a device the controller knows nothing of does not enforce.
 */
public interface PofMeterCapabilityService {

    MeterEnforcement meterEnforcement(DeviceId deviceId);
}
