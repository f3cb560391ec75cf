package org.wislice.onos.pof.impl;

import org.onosproject.net.flow.FlowRule;
import org.onosproject.net.flow.criteria.Criterion;
import org.onosproject.net.flow.criteria.ExtensionCriterion;
import org.onosproject.net.flow.instructions.Instruction;
import org.onosproject.net.flow.instructions.Instructions;
import org.wislice.onos.pof.driver.PofInstructionTreatment;
import org.wislice.onos.pof.driver.PofMatchSelector;
import org.wislice.onos.pof.wire.FlowMod;
import org.wislice.onos.pof.wire.PofAction;
import org.wislice.onos.pof.wire.PofInstruction;
import org.wislice.onos.pof.wire.ResourceReport;
import org.wislice.onos.pof.wire.TableMod;

import java.util.ArrayList;
import java.util.List;

/**
 * ONOS FlowRule -> POF FLOW_MOD. The match comes from the POF match extension selector; the instructions are
 * ONOS's meter instruction (-> METER, first), the POF instruction extension, and plain ONOS OUTPUT
 * instructions (-> one APPLY_ACTIONS of OUTPUTs, last). FlowRule.tableId() is the POF global table id, the
 * flow id is the POF cookie. Anything else is rejected with a message naming it.
 */
public final class PofFlowTranslator {
    /** Table counts per type when a switch did not report them: the reference switch's defaults. */
    private static final int[] DEFAULT_TABLES = {10, 10, 5, 20};

    private PofFlowTranslator() {
    }

    public static FlowMod toFlowMod(FlowRule rule, int command, ResourceReport resources, long index,
                                    long counterId) {
        FlowMod f = new FlowMod();
        f.command = command;
        int[] typeAndId = locateTable(rule.tableId(), resources);
        f.tableType = typeAndId[0];
        f.tableId = typeAndId[1];
        f.priority = rule.priority();
        f.cookie = rule.id().value();
        f.index = index;
        f.counterId = counterId;
        f.hardTimeout = rule.isPermanent() ? 0 : rule.hardTimeout();
        f.idleTimeout = rule.isPermanent() ? 0 : rule.timeout();
        if (command == FlowMod.DELETE || command == FlowMod.DELETE_STRICT) {
            return f;
        }
        for (Criterion c : rule.selector().criteria()) {
            if (c instanceof ExtensionCriterion
                    && ((ExtensionCriterion) c).extensionSelector() instanceof PofMatchSelector) {
                f.matches.addAll(((PofMatchSelector) ((ExtensionCriterion) c).extensionSelector()).matches());
            } else {
                throw new IllegalArgumentException("criterion " + c.type() + " is not POF; use PofMatchSelector");
            }
        }
        f.instructions = instructions(rule);
        return f;
    }

    static List<PofInstruction> instructions(FlowRule rule) {
        List<PofInstruction> meters = new ArrayList<>();
        List<PofInstruction> pof = new ArrayList<>();
        List<PofAction> outputs = new ArrayList<>();
        // ONOS keeps meter instructions apart from allInstructions().
        for (Instructions.MeterInstruction m : rule.treatment().meters()) {
            meters.add(new PofInstruction.Meter(m.meterId().id()));
        }
        for (Instruction i : rule.treatment().allInstructions()) {
            if (i instanceof Instructions.MeterInstruction) {
                continue;
            } else if (i instanceof Instructions.OutputInstruction) {
                outputs.add(new PofAction.Output(((Instructions.OutputInstruction) i).port().toLong()));
            } else if (i instanceof Instructions.ExtensionInstructionWrapper && ((Instructions
                    .ExtensionInstructionWrapper) i).extensionInstruction() instanceof PofInstructionTreatment) {
                pof.addAll(((PofInstructionTreatment) ((Instructions.ExtensionInstructionWrapper) i)
                        .extensionInstruction()).instructions());
            } else if (i.type() != Instruction.Type.NOACTION) {
                throw new IllegalArgumentException("instruction " + i.type() + " is not supported by POF");
            }
        }
        List<PofInstruction> all = new ArrayList<>(meters);
        all.addAll(pof);
        if (!outputs.isEmpty()) {
            all.add(new PofInstruction.ApplyActions(outputs));
        }
        return all;
    }

    /** Global table id -> {table type, index within the type}; global ids count MM, LPM, EM, LINEAR in order. */
    public static int[] locateTable(int globalId, ResourceReport resources) {
        int first = 0;
        for (int type = TableMod.MM; type <= TableMod.LINEAR; type++) {
            int count = resources != null && resources.tables.size() > type
                    ? resources.tables.get(type).tblNum : DEFAULT_TABLES[type];
            if (globalId < first + count) {
                return new int[] {type, globalId - first};
            }
            first += count;
        }
        throw new IllegalArgumentException("table " + globalId + " beyond the switch's " + first + " tables");
    }
}
