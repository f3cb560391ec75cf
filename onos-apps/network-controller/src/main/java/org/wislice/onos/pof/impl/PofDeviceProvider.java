package org.wislice.onos.pof.impl;

import org.onlab.packet.ChassisId;
import org.onosproject.net.AnnotationKeys;
import org.onosproject.net.DefaultAnnotations;
import org.onosproject.net.DeviceId;
import org.onosproject.net.MastershipRole;
import org.onosproject.net.Port;
import org.onosproject.net.PortNumber;
import org.onosproject.net.device.DefaultDeviceDescription;
import org.onosproject.net.device.DefaultPortDescription;
import org.onosproject.net.device.DeviceDescription;
import org.onosproject.net.device.DeviceProvider;
import org.onosproject.net.device.DeviceProviderRegistry;
import org.onosproject.net.device.DeviceProviderService;
import org.onosproject.net.device.PortDescription;
import org.onosproject.net.provider.AbstractProvider;
import org.onosproject.net.provider.ProviderId;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.slf4j.Logger;
import org.wislice.onos.pof.api.PofController;
import org.wislice.onos.pof.api.PofSwitchListener;
import org.wislice.onos.pof.channel.PofSession;
import org.wislice.onos.pof.driver.PofDriverRegistrar;
import org.wislice.onos.pof.wire.FeaturesReply;
import org.wislice.onos.pof.wire.Hex;
import org.wislice.onos.pof.wire.PofPort;
import org.wislice.onos.pof.wire.PortStatus;

import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.stream.Collectors;

import static org.slf4j.LoggerFactory.getLogger;

/** POF switches as ONOS devices (scheme "pof"), with their ports; port enable/disable through PORT_MOD. */
@Component(immediate = true)
public class PofDeviceProvider extends AbstractProvider implements DeviceProvider {
    public static final ProviderId PID = new ProviderId("pof", "org.wislice.pof");
    private final Logger log = getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected DeviceProviderRegistry providerRegistry;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected PofController controller;

    private DeviceProviderService providerService;
    private final PofSwitchListener listener = new Switches();

    public PofDeviceProvider() {
        super(PID);
    }

    @Activate
    protected void activate() {
        providerService = providerRegistry.register(this);
        controller.addListener(listener);
        controller.switches().forEach(listener::switchAdded);
        log.info("Started POF device provider");
    }

    @Deactivate
    protected void deactivate() {
        controller.removeListener(listener);
        controller.switches().keySet().forEach(providerService::deviceDisconnected);
        providerRegistry.unregister(this);
        providerService = null;
        log.info("Stopped POF device provider");
    }

    static DeviceDescription describe(DeviceId id, PofSession session) {
        FeaturesReply f = session.features();
        DefaultAnnotations annotations = DefaultAnnotations.builder()
                .set(AnnotationKeys.PROTOCOL, "POF")
                .set(AnnotationKeys.CHANNEL_ID, session.remoteAddress())
                .set(AnnotationKeys.DRIVER, PofDriverRegistrar.DRIVER_NAME)
                .set("devId", Long.toString(f.devId))
                .set("tables", Integer.toString(f.tableNum))
                .build();
        return new DefaultDeviceDescription(URI.create(id.toString()), org.onosproject.net.Device.Type.SWITCH,
                f.vendorId, f.devLkupId, f.devFwId, Long.toString(f.devId), new ChassisId(f.devId), annotations);
    }

    static PortDescription describe(PofPort p) {
        DefaultAnnotations annotations = DefaultAnnotations.builder()
                .set(AnnotationKeys.PORT_NAME, p.name)
                .set(AnnotationKeys.PORT_MAC, macString(p.hwAddr))
                .build();
        // curr_speed is in kbps on the wire; ONOS counts Mbps.
        return DefaultPortDescription.builder()
                .withPortNumber(PortNumber.portNumber(p.portId))
                .isEnabled(p.ofEnable != 0)
                .type(Port.Type.COPPER)
                .portSpeed(p.currSpeed / 1000)
                .annotations(annotations)
                .build();
    }

    private static String macString(byte[] mac) {
        String hex = Hex.encode(mac);
        return hex.replaceAll("(..)(?!$)", "$1:");
    }

    @Override
    public void triggerProbe(DeviceId deviceId) {
        // Switches report themselves; nothing to probe.
    }

    @Override
    public void roleChanged(DeviceId deviceId, MastershipRole newRole) {
        // POF has no role request: the node holding the switch connection is its master, so confirm the role.
        if (providerService != null) {
            providerService.receivedRoleReply(deviceId, newRole, newRole);
        }
    }

    @Override
    public boolean isReachable(DeviceId deviceId) {
        return controller.session(deviceId).map(PofSession::isReady).orElse(false);
    }

    @Override
    public void changePortState(DeviceId deviceId, PortNumber portNumber, boolean enable) {
        controller.session(deviceId).ifPresent(s -> {
            PofPort reported = s.ports().get((int) portNumber.toLong());
            if (reported == null) {
                log.warn("{}: no port {}", deviceId, portNumber);
                return;
            }
            PofPort port = reported.copy();
            port.ofEnable = enable ? 1 : 0;
            try {
                s.send(new org.wislice.onos.pof.wire.PofMessage(org.wislice.onos.pof.wire.PofType.PORT_MOD,
                        s.nextXid(), new PortStatus(PortStatus.MODIFY, port)));
                reported.ofEnable = port.ofEnable;
                providerService.portStatusChanged(deviceId, describe(port));
            } catch (IOException e) {
                log.warn("{}: PORT_MOD failed: {}", deviceId, e.getMessage());
            }
        });
    }

    /** Switch events to device and port updates. */
    private final class Switches implements PofSwitchListener {
        @Override
        public void switchAdded(DeviceId id, PofSession session) {
            providerService.deviceConnected(id, describe(id, session));
            List<PortDescription> ports = session.ports().values().stream()
                    .map(PofDeviceProvider::describe).collect(Collectors.toList());
            providerService.updatePorts(id, ports);
        }

        @Override
        public void switchRemoved(DeviceId id) {
            providerService.deviceDisconnected(id);
        }

        @Override
        public void portChanged(DeviceId id, PortStatus status) {
            PortDescription desc = describe(status.port);
            if (status.reason == PortStatus.DELETE) {
                providerService.deletePort(id, desc);
            } else {
                providerService.portStatusChanged(id, desc);
            }
        }
    }
}
