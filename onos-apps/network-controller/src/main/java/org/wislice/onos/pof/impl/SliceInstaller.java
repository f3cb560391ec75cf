package org.wislice.onos.pof.impl;

import org.onosproject.net.DeviceId;
import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.FlowRuleOperation;
import org.onosproject.net.flow.FlowRuleOperations;
import org.onosproject.net.flow.FlowRuleOperationsContext;
import org.onosproject.net.flow.FlowRuleService;
import org.onosproject.net.meter.Meter;
import org.onosproject.net.meter.MeterId;
import org.onosproject.net.meter.MeterService;
import org.onosproject.net.meter.MeterState;
import org.wislice.onos.pof.api.SliceException;
import org.wislice.onos.pof.api.SlicePath;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** The slice manager's waits on the switches: meters confirmed ADDED, flow operations confirmed by the providers. */
final class SliceInstaller {
    private final FlowRuleService flowRuleService;
    private final MeterService meterService;

    SliceInstaller(FlowRuleService flowRuleService, MeterService meterService) {
        this.flowRuleService = flowRuleService;
        this.meterService = meterService;
    }

    /** Waits until every meter is ADDED (the switch confirmed it). */
    void awaitMeters(List<SlicePath.MeterRef> refs) {
        long deadline = System.currentTimeMillis() + PofSliceManager.INSTALL_TIMEOUT_MS;
        for (SlicePath.MeterRef ref : refs) {
            while (true) {
                Meter m = meterService.getMeter(DeviceId.deviceId(ref.deviceId), MeterId.meterId(ref.meterId));
                if (m != null && m.state() == MeterState.ADDED) {
                    break;
                }
                if (System.currentTimeMillis() > deadline) {
                    throw new SliceException("timeout", 504, "meter " + ref.meterId + " on " + ref.deviceId
                            + " not confirmed by the switch");
                }
                sleep();
            }
        }
    }

    /** Adds, modifies or removes the rules as one FlowRuleOperations and waits for the providers to confirm. */
    void applyFlows(List<FlowRule> rules, FlowRuleOperation.Type type) {
        applyAndWait(flowRuleService, rules, type, PofSliceManager.INSTALL_TIMEOUT_MS, "the slice's flows");
    }

    /**
     * The rules as one FlowRuleOperations of one type, waited for until the providers confirm them (every path
     * that programs flows and answers a caller: slices and the raw flows of PofFlowManager). SliceException 500
     * when a switch refused some ("what" names them), 504 after timeoutMs.
     */
    static void applyAndWait(FlowRuleService service, List<FlowRule> rules, FlowRuleOperation.Type type,
                             long timeoutMs, String what) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        FlowRuleOperations.Builder ops = FlowRuleOperations.builder();
        rules.forEach(r -> {
            if (type == FlowRuleOperation.Type.ADD) {
                ops.add(r);
            } else if (type == FlowRuleOperation.Type.MODIFY) {
                ops.modify(r);
            } else {
                ops.remove(r);
            }
        });
        service.apply(ops.build(new FlowRuleOperationsContext() {
            @Override
            public void onSuccess(FlowRuleOperations o) {
                done.complete(null);
            }

            @Override
            public void onError(FlowRuleOperations o) {
                done.completeExceptionally(new SliceException("internal", 500, "a switch refused " + what));
            }
        }));
        try {
            done.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new SliceException("timeout", 504, "switches did not confirm " + what + " in time");
        } catch (ExecutionException e) {
            throw e.getCause() instanceof SliceException ? (SliceException) e.getCause()
                    : new SliceException("internal", 500, String.valueOf(e.getCause()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SliceException("internal", 500, "interrupted");
        }
    }

    private static void sleep() {
        try {
            Thread.sleep(20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SliceException("internal", 500, "interrupted");
        }
    }
}
