package org.wislice.onos.pof.impl;

import org.onosproject.net.DeviceId;
import org.onosproject.net.meter.Band;
import org.onosproject.net.meter.DefaultMeter;
import org.onosproject.net.meter.DefaultMeterFeatures;
import org.onosproject.net.meter.Meter;
import org.onosproject.net.meter.MeterFailReason;
import org.onosproject.net.meter.MeterId;
import org.onosproject.net.meter.MeterOperation;
import org.onosproject.net.meter.MeterOperations;
import org.onosproject.net.meter.MeterProvider;
import org.onosproject.net.meter.MeterProviderRegistry;
import org.onosproject.net.meter.MeterProviderService;
import org.onosproject.net.meter.MeterState;
import org.onosproject.net.provider.AbstractProvider;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.slf4j.Logger;
import org.wislice.onos.pof.api.PofController;
import org.wislice.onos.pof.api.PofSwitchListener;
import org.wislice.onos.pof.channel.PofSession;
import org.wislice.onos.pof.wire.PofBody;
import org.wislice.onos.pof.wire.PofCodecException;
import org.wislice.onos.pof.wire.PofMessage;
import org.wislice.onos.pof.wire.PofType;

import java.io.IOException;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.slf4j.LoggerFactory.getLogger;

/**
 * ONOS meters as POF meters: one METER_MOD per operation, confirmed by the ECHO barrier; then every meter the
 * switch holds is pushed to ONOS as ADDED. Rates are ONOS KB_PER_SEC: a single band is a single-rate meter (rate =
 * its rate, committed_rate 0); a DROP band plus a MARK_YELLOW (or REMARK) band is a two-rate meter (rate = the
 * DROP band's peak, committed_rate = the other band's rate), see {@link SliceMeters}. Meter features (ids
 * 1..meter_num-1) come from the switch's RESOURCE_REPORT. A switch that kept its meters across the controller's
 * restart (ours does unless --reset-on-connect) answers ONOS's fresh ADD of a reused id with METER_EXISTS: that
 * meter is a previous session's, ONOS owns the id now, so the ADD is sent again as MODIFY.
 */
@Component(immediate = true)
public class PofMeterProvider extends AbstractProvider implements MeterProvider {
    private static final long BARRIER_TIMEOUT_S = 10;
    private final Logger log = getLogger(getClass());

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected MeterProviderRegistry providerRegistry;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected PofController controller;

    private MeterProviderService providerService;
    private final Map<DeviceId, Map<MeterId, Meter>> installed = new ConcurrentHashMap<>();
    private final PofSwitchListener listener = new Switches();
    /** METER_MOD xids until their barrier, and those the switch answered with ERROR (keyed "device/xid"). */
    private final Map<String, MeterOperation> inflight = new ConcurrentHashMap<>();
    private final Set<String> refused = ConcurrentHashMap.newKeySet();
    /** METER_MOD ADDs (keyed "device/xid") the switch refused with METER_EXISTS: a previous session's meter. */
    private final Set<String> stale = ConcurrentHashMap.newKeySet();
    /** Meters ("device/id") an ADD was sent for and not deleted since. */
    private final Set<String> sent = ConcurrentHashMap.newKeySet();

    public PofMeterProvider() {
        super(PofDeviceProvider.PID);
    }

    @Activate
    protected void activate() {
        providerService = providerRegistry.register(this);
        controller.addListener(listener);
        controller.switches().forEach(listener::switchAdded);
        log.info("Started POF meter provider");
    }

    @Deactivate
    protected void deactivate() {
        controller.removeListener(listener);
        providerRegistry.unregister(this);
        providerService = null;
        installed.clear();
        log.info("Stopped POF meter provider");
    }

    @Override
    public void performMeterOperation(DeviceId deviceId, MeterOperations meterOps) {
        meterOps.operations().forEach(op -> performMeterOperation(deviceId, op));
    }

    @Override
    public void performMeterOperation(DeviceId deviceId, MeterOperation op) {
        PofSession session = controller.session(deviceId).orElse(null);
        Map<MeterId, Meter> meters = installed.get(deviceId);
        if (session == null || meters == null) {
            log.warn("{}: meter {} {} refused: switch not connected", deviceId, op.type(), op.meter().id());
            providerService.meterOperationFailed(op, MeterFailReason.UNKNOWN_DEVICE);
            return;
        }
        Meter meter = op.meter();
        PofBody.MeterMod mod;
        try {
            mod = toMeterMod(op);
            // ONOS re-sends ADD for a meter still pending when another one is confirmed: once a meter is on
            // (or on its way to) the switch, ADD becomes MODIFY, which the switch accepts as the same meter.
            String meterKey = deviceId + "/" + meter.id();
            if (mod.command == PofBody.MeterMod.ADD && !sent.add(meterKey)) {
                mod.command = PofBody.MeterMod.MODIFY;
            } else if (mod.command == PofBody.MeterMod.DELETE) {
                // Stop reporting it at once: a push from another meter's barrier must not call it ADDED again.
                sent.remove(meterKey);
                meters.remove(meter.id());
            }
        } catch (IllegalArgumentException e) {
            log.warn("{}: meter {} refused: {}", deviceId, meter.id(), e.getMessage());
            providerService.meterOperationFailed(op, MeterFailReason.BAD_BAND);
            return;
        }
        send(deviceId, session, op, mod, meters);
    }

    /** One METER_MOD and its barrier; the outcome is reported to ONOS (or the ADD sent again as MODIFY). */
    private void send(DeviceId deviceId, PofSession session, MeterOperation op, PofBody.MeterMod mod,
                      Map<MeterId, Meter> meters) {
        Meter meter = op.meter();
        long xid = session.nextXid();
        String key = deviceId + "/" + xid;
        inflight.put(key, op);
        log.debug("{}: METER_MOD command {} meter {} rate {} kbps committed {} kbps flags {}", deviceId,
                mod.command, mod.meterId, mod.rate, mod.committedRate, mod.flags);
        try {
            session.send(new PofMessage(PofType.METER_MOD, xid, mod));
        } catch (IOException e) {
            inflight.remove(key);
            providerService.meterOperationFailed(op, MeterFailReason.UNKNOWN_DEVICE);
            return;
        }
        session.barrier().orTimeout(BARRIER_TIMEOUT_S, TimeUnit.SECONDS).whenComplete((reply, err) -> {
            inflight.remove(key);
            if (stale.remove(key)) {
                log.info("{}: meter {} was left from an earlier session: replacing it", deviceId, meter.id());
                PofBody.MeterMod modify = new PofBody.MeterMod(PofBody.MeterMod.MODIFY, mod.meterId, mod.rate,
                        mod.committedRate);
                modify.flags = mod.flags;
                send(deviceId, session, op, modify, meters);
                return;
            }
            if (refused.remove(key)) {
                providerService.meterOperationFailed(op, MeterFailReason.INVALID_METER);
                return;
            }
            if (err != null) {
                providerService.meterOperationFailed(op, MeterFailReason.TIMEOUT);
                return;
            }
            if (op.type() == MeterOperation.Type.REMOVE) {
                meters.remove(meter.id());
            } else {
                meters.put(meter.id(), meter);
            }
            push(deviceId);
        });
    }

    /** METER_MOD for an ONOS meter operation; only kbps meters with the bands of {@link SliceMeters} map. */
    static PofBody.MeterMod toMeterMod(MeterOperation op) {
        Meter meter = op.meter();
        int command;
        switch (op.type()) {
            case ADD:
                command = PofBody.MeterMod.ADD;
                break;
            case MODIFY:
                command = PofBody.MeterMod.MODIFY;
                break;
            case REMOVE:
                command = PofBody.MeterMod.DELETE;
                break;
            default:
                throw new IllegalArgumentException("meter operation " + op.type());
        }
        long[] rates = {0, 0};
        if (command != PofBody.MeterMod.DELETE) {
            if (meter.unit() != Meter.Unit.KB_PER_SEC) {
                throw new IllegalArgumentException("POF meters count kbps, not " + meter.unit());
            }
            rates = SliceMeters.pofRates(meter.bands());
        }
        PofBody.MeterMod mod = new PofBody.MeterMod(command, meter.id().id(), rates[0], rates[1]);
        if (command != PofBody.MeterMod.DELETE) {
            mod.flags = SliceMeters.pofFlags(meter);
        }
        try {
            mod.check();
        } catch (PofCodecException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        return mod;
    }

    /** Every meter the switch holds, as ADDED. */
    private void push(DeviceId deviceId) {
        Map<MeterId, Meter> meters = installed.get(deviceId);
        if (meters == null || providerService == null) {
            return;
        }
        Collection<Meter> entries = meters.values().stream().map(m -> {
            DefaultMeter copy = (DefaultMeter) DefaultMeter.builder().forDevice(deviceId).withId(m.id())
                    .fromApp(m.appId()).withUnit(m.unit()).withBands(m.bands()).build();
            copy.setState(MeterState.ADDED);
            copy.setLife(m.life());
            copy.setReferenceCount(m.referenceCount());
            return (Meter) copy;
        }).collect(Collectors.toList());
        providerService.pushMeterMetrics(deviceId, entries);
    }

    /** Meter features on connect; ONOS's view of the switch's meters starts empty with the connection. */
    private final class Switches implements PofSwitchListener {
        @Override
        public void switchAdded(DeviceId id, PofSession session) {
            installed.put(id, new ConcurrentHashMap<>());
            sent.removeIf(k -> k.startsWith(id + "/"));
            long meterNum = session.resources() == null ? 256 : Math.min(session.resources().meterNum, 256);
            providerService.pushMeterFeatures(id, DefaultMeterFeatures.builder()
                    .forDevice(id)
                    .withMaxMeters(meterNum - 1)
                    .withStartIndex(1)
                    .withEndIndex(meterNum - 1)
                    .withBandTypes(Set.of(Band.Type.DROP, Band.Type.MARK_YELLOW, Band.Type.REMARK))
                    .withUnits(Set.of(Meter.Unit.KB_PER_SEC))
                    .withMaxBands((short) 2)
                    .withMaxColors((short) 2)
                    .build());
            push(id);
        }

        @Override
        public void switchRemoved(DeviceId id) {
            installed.remove(id);
            sent.removeIf(k -> k.startsWith(id + "/"));
        }

        @Override
        public void message(DeviceId id, PofMessage message) {
            String key = id + "/" + message.xid();
            MeterOperation op = inflight.get(key);
            if (message.type() != PofType.ERROR || op == null) {
                return;
            }
            PofBody.Error error = message.body(PofBody.Error.class);
            if (op.type() == MeterOperation.Type.ADD && error.type == PofBody.MeterMod.METER_MOD_FAILED
                    && error.code == PofBody.MeterMod.METER_EXISTS) {
                stale.add(key);
                return;
            }
            log.warn("{}: switch refused meter operation: {}", id, error.string);
            refused.add(key);
        }
    }

}
