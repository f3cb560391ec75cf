package org.wislice.onos.pof.impl;

import org.onlab.util.Tools;
import org.onosproject.cfg.ComponentConfigService;
import org.onosproject.net.Device;
import org.onosproject.net.DeviceId;
import org.onosproject.net.device.DeviceService;
import org.osgi.service.component.ComponentContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.slf4j.Logger;
import org.wislice.onos.pof.api.MeterEnforcement;
import org.wislice.onos.pof.api.PofMeterCapabilityService;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import static org.slf4j.LoggerFactory.getLogger;
import static org.wislice.onos.pof.impl.OsgiPropertyConstants.METER_ENFORCEMENT_OVERRIDES;
import static org.wislice.onos.pof.impl.OsgiPropertyConstants.METER_ENFORCEMENT_OVERRIDES_DEFAULT;

/**
 * Answers whether a switch enforces meter rates. What the switch said is the device annotation the device provider
 * set from its FEATURES_REPLY (so every cluster node reads the same, also while it is disconnected); the operator's
 * overrides are for switches the handshake misjudges: a third-party switch that does enforce, or a pof-switch
 * build that should not be trusted with a guarantee.
 */
@Component(immediate = true, service = PofMeterCapabilityService.class,
        property = {METER_ENFORCEMENT_OVERRIDES + "=" + METER_ENFORCEMENT_OVERRIDES_DEFAULT})
public class PofMeterCapabilityManager implements PofMeterCapabilityService {
    private final Logger log = getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected DeviceService deviceService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected ComponentConfigService cfgService;

    /**
     * Switches known to enforce meter rates or not, whatever their handshake says: "pof:00000002=false,
     * pof:00000003=true"; empty = none.
     */
    private String meterEnforcementOverrides = METER_ENFORCEMENT_OVERRIDES_DEFAULT;

    private volatile Map<DeviceId, Boolean> overrides = Map.of();

    @Activate
    protected void activate(ComponentContext context) {
        // Registered, the property is what onos:cfg and /onos/v1/configuration list and set.
        cfgService.registerProperties(getClass());
        readProperties(context);
        log.info("Started POF meter capabilities ({} overrides)", overrides.size());
    }

    @Modified
    protected void modified(ComponentContext context) {
        readProperties(context);
    }

    @Deactivate
    protected void deactivate() {
        // Keep the operator's overrides for the next activation.
        cfgService.unregisterProperties(getClass(), false);
    }

    private void readProperties(ComponentContext context) {
        if (context == null) {
            return;
        }
        String spec = Optional.ofNullable(Tools.get(context.getProperties(), METER_ENFORCEMENT_OVERRIDES))
                .orElse(METER_ENFORCEMENT_OVERRIDES_DEFAULT);
        try {
            setOverrides(parseOverrides(spec));
            meterEnforcementOverrides = spec;
        } catch (IllegalArgumentException e) {
            // Half an override list could admit a guarantee onto a switch the operator meant to exclude.
            log.error("ignoring {} '{}' (keeping '{}'): {}", METER_ENFORCEMENT_OVERRIDES, spec,
                    meterEnforcementOverrides, e.getMessage());
        }
    }

    void setOverrides(Map<DeviceId, Boolean> newOverrides) {
        overrides = Map.copyOf(newOverrides);
        log.info("meter enforcement overrides: {}", overrides);
    }

    @Override
    public MeterEnforcement meterEnforcement(DeviceId deviceId) {
        Boolean forced = overrides.get(deviceId);
        if (forced != null) {
            return new MeterEnforcement(forced, MeterEnforcement.Source.OVERRIDE);
        }
        Device device = deviceService.getDevice(deviceId);
        boolean said = device != null && "true".equals(device.annotations().value(MeterEnforcement.ANNOTATION));
        return new MeterEnforcement(said, MeterEnforcement.Source.FEATURES);
    }

    @Override
    public boolean latencyMeters(DeviceId deviceId) {
        Device device = deviceService.getDevice(deviceId);
        return device != null && "true".equals(device.annotations().value(MeterEnforcement.LATENCY_ANNOTATION));
    }

    /**
     * Parses "pof:00000002=false,pof:00000003=true" (spaces allowed around entries); throws
     * IllegalArgumentException naming the bad entry.
     */
    static Map<DeviceId, Boolean> parseOverrides(String spec) {
        Map<DeviceId, Boolean> out = new LinkedHashMap<>();
        if (spec == null || spec.isBlank()) {
            return out;
        }
        for (String entry : spec.split(",")) {
            String[] kv = entry.trim().split("=", -1);
            if (kv.length != 2 || !kv[0].trim().matches("pof:[0-9a-f]{8}")) {
                throw new IllegalArgumentException("entry '" + entry.trim() + "': expected pof:XXXXXXXX=true|false");
            }
            String value = kv[1].trim();
            if (!"true".equals(value) && !"false".equals(value)) {
                throw new IllegalArgumentException("entry '" + entry.trim() + "': value must be true or false");
            }
            DeviceId id = DeviceId.deviceId(kv[0].trim());
            if (out.put(id, Boolean.parseBoolean(value)) != null) {
                throw new IllegalArgumentException("entry '" + entry.trim() + "': " + id + " given twice");
            }
        }
        return out;
    }
}
