package org.wislice.onos.pof.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.net.AnnotationKeys;
import org.onosproject.net.Device;
import org.onosproject.net.DeviceId;
import org.onosproject.net.Port;
import org.onosproject.net.device.DeviceService;
import org.wislice.onos.pof.channel.PofSession;
import org.wislice.onos.pof.channel.SwitchLatency;
import org.wislice.onos.pof.wire.PofPort;

import java.util.Map;
import java.util.TreeMap;

/**
 * The POF switches as the REST contract shows them: {device_id, dev_id, address, connected, meters_enforced,
 * meters_enforced_source, ports:[{port_id, name, enabled}], latency?}; connected switches from their sessions,
 * known-but-gone ones from the device store. `latency` only for a connected switch that answered PORT_LATENCY
 * (pof-switch; {@link org.wislice.onos.pof.channel.SwitchLatency#toJson}).
 */
public final class PofSwitchView {

    private PofSwitchView() {
    }

    public static ArrayNode switches(ObjectMapper mapper, PofController controller, DeviceService devices,
                                     PofMeterCapabilityService meters) {
        Map<String, ObjectNode> out = new TreeMap<>();
        controller.switches().forEach((id, s) -> out.put(id.toString(), connected(mapper, id, s, meters)));
        for (Device d : devices.getDevices()) {
            if ("pof".equals(d.id().uri().getScheme()) && !out.containsKey(d.id().toString())) {
                out.put(d.id().toString(), stored(mapper, d, devices, meters));
            }
        }
        ArrayNode arr = mapper.createArrayNode();
        out.values().forEach(arr::add);
        return arr;
    }

    private static ObjectNode connected(ObjectMapper mapper, DeviceId id, PofSession s,
                                        PofMeterCapabilityService meters) {
        ObjectNode n = mapper.createObjectNode();
        n.put("device_id", id.toString());
        n.put("dev_id", s.devId());
        n.put("address", s.remoteAddress());
        n.put("connected", s.isReady());
        meters.meterEnforcement(id).addTo(n);
        ArrayNode ports = n.putArray("ports");
        for (PofPort p : s.ports().values()) {
            ports.addObject().put("port_id", p.portId).put("name", p.name).put("enabled", p.ofEnable != 0);
        }
        SwitchLatency latency = s.latency();
        if (latency != null) {
            n.set("latency", latency.toJson(mapper, System.currentTimeMillis()));
        }
        return n;
    }

    private static ObjectNode stored(ObjectMapper mapper, Device d, DeviceService devices,
                                     PofMeterCapabilityService meters) {
        ObjectNode n = mapper.createObjectNode();
        n.put("device_id", d.id().toString());
        n.put("dev_id", Long.parseLong(d.id().uri().getSchemeSpecificPart(), 16));
        n.put("address", d.annotations().value(AnnotationKeys.CHANNEL_ID));
        n.put("connected", false);
        meters.meterEnforcement(d.id()).addTo(n);
        ArrayNode ports = n.putArray("ports");
        for (Port p : devices.getPorts(d.id())) {
            ports.addObject().put("port_id", p.number().toLong())
                    .put("name", p.annotations().value(AnnotationKeys.PORT_NAME)).put("enabled", p.isEnabled());
        }
        return n;
    }
}
