package org.wislice.onos.pof.impl;

import com.fasterxml.jackson.databind.JsonNode;
import org.onosproject.core.ApplicationId;
import org.onosproject.core.CoreService;
import org.onosproject.net.DeviceId;
import org.onosproject.net.device.DeviceService;
import org.onosproject.net.flow.DefaultFlowRule;
import org.onosproject.net.flow.DefaultTrafficSelector;
import org.onosproject.net.flow.DefaultTrafficTreatment;
import org.onosproject.net.flow.FlowEntry;
import org.onosproject.net.flow.FlowId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleOperation;
import org.onosproject.net.flow.FlowRuleService;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.wislice.onos.pof.api.PofFlowService;
import org.wislice.onos.pof.api.SliceException;
import org.wislice.onos.pof.driver.PofInstructionTreatment;
import org.wislice.onos.pof.driver.PofMatchSelector;
import org.wislice.onos.pof.wire.PofInstruction;
import org.wislice.onos.pof.wire.PofJson;
import org.wislice.onos.pof.wire.PofMatchX;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Raw POF entries as ONOS FlowRules. Their flow ids carry bit 47 ("raw"), so they never collide with slice
 * flows and can be found again for removal without purging by application (docs/runtime-facts.md).
 */
@Component(immediate = true, service = PofFlowService.class)
public class PofFlowManager implements PofFlowService {
    static final long RAW_BIT = 1L << 47;
    private static final long TIMEOUT_MS = 60_000;
    private static final int MAX_ENTRIES = 4000;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected CoreService coreService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected DeviceService deviceService;

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected FlowRuleService flowRuleService;

    private ApplicationId appId;
    private final AtomicLong sequence = new AtomicLong();

    @Activate
    protected void activate() {
        appId = coreService.registerApplication(PofSliceManager.APP_NAME);
    }

    @Override
    public List<FlowId> addFlows(DeviceId deviceId, JsonNode entries) {
        if (deviceService.getDevice(deviceId) == null || !deviceService.isAvailable(deviceId)) {
            throw SliceException.badRequest(deviceId + " is not a connected POF switch");
        }
        if (entries == null || !entries.isArray() || entries.size() == 0 || entries.size() > MAX_ENTRIES) {
            throw SliceException.badRequest("flows must be a list of 1-" + MAX_ENTRIES + " entries");
        }
        List<FlowRule> rules = new ArrayList<>();
        for (JsonNode e : entries) {
            rules.add(rule(deviceId, e, rules.size()));
        }
        apply(rules, true);
        List<FlowId> ids = new ArrayList<>();
        rules.forEach(r -> ids.add(r.id()));
        return ids;
    }

    private FlowRule rule(DeviceId deviceId, JsonNode e, int i) {
        String where = "flows[" + i + "]";
        int table = e.path("table_id").asInt(-1);
        int priority = e.path("priority").asInt(-1);
        if (table < 0 || table > 255 || priority < 0 || priority > 0xffff) {
            throw SliceException.badRequest(where + ": table_id 0-255 and priority 0-65535 are required");
        }
        List<PofMatchX> matches = new ArrayList<>();
        List<PofInstruction> instructions = new ArrayList<>();
        try {
            for (JsonNode m : e.path("matches")) {
                matches.add(PofJson.fromTree(m, PofMatchX.class));
            }
            for (JsonNode in : e.path("instructions")) {
                instructions.add(PofJson.fromTree(in, PofInstruction.class));
            }
        } catch (IllegalArgumentException ex) {
            throw SliceException.badRequest(where + ": " + ex.getMessage());
        }
        if (matches.size() > 8 || instructions.size() > PofInstruction.MAX_PER_FLOW) {
            throw SliceException.badRequest(where + ": at most 8 matches and 6 instructions");
        }
        long cookie = ((long) appId.id() << 48) | RAW_BIT | (sequence.incrementAndGet() & (RAW_BIT - 1));
        return DefaultFlowRule.builder()
                .forDevice(deviceId)
                .forTable(table)
                .withPriority(priority)
                .withCookie(cookie)
                .withSelector(DefaultTrafficSelector.builder()
                        .extension(new PofMatchSelector(matches), deviceId).build())
                .withTreatment(DefaultTrafficTreatment.builder()
                        .extension(new PofInstructionTreatment(instructions), deviceId).build())
                .makePermanent()
                .build();
    }

    @Override
    public int removeFlows(DeviceId deviceId) {
        List<FlowRule> ours = new ArrayList<>();
        for (FlowEntry f : flowRuleService.getFlowEntries(deviceId)) {
            if (f.appId() == appId.id() && (f.id().value() & RAW_BIT) != 0) {
                ours.add(f);
            }
        }
        if (!ours.isEmpty()) {
            apply(ours, false);
        }
        return ours.size();
    }

    private void apply(List<FlowRule> rules, boolean add) {
        SliceInstaller.applyAndWait(flowRuleService, rules,
                                    add ? FlowRuleOperation.Type.ADD : FlowRuleOperation.Type.REMOVE, TIMEOUT_MS,
                                    "the flows");
    }
}
