package org.wislice.onos.pof.driver;

import com.fasterxml.jackson.core.type.TypeReference;
import org.onosproject.net.flow.AbstractExtension;
import org.onosproject.net.flow.instructions.ExtensionTreatment;
import org.onosproject.net.flow.instructions.ExtensionTreatmentType;
import org.wislice.onos.pof.wire.PofInstruction;
import org.wislice.onos.pof.wire.PofJson;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * POF instructions of a flow entry as an ONOS extension treatment (the instruction list of FLOW_MOD, in
 * order, after a METER instruction that ONOS's own meter instruction becomes). Serialized as spec/pof JSON.
 */
public final class PofInstructionTreatment extends AbstractExtension implements ExtensionTreatment {
    public static final ExtensionTreatmentType TYPE = new ExtensionTreatmentType(0x504f);

    private List<PofInstruction> instructions = new ArrayList<>();

    public PofInstructionTreatment() {
    }

    public PofInstructionTreatment(List<PofInstruction> instructions) {
        this.instructions = new ArrayList<>(instructions);
    }

    public List<PofInstruction> instructions() {
        return List.copyOf(instructions);
    }

    @Override
    public ExtensionTreatmentType type() {
        return TYPE;
    }

    @Override
    public byte[] serialize() {
        try {
            return PofJson.mapper().writerFor(new TypeReference<List<PofInstruction>>() { })
                    .writeValueAsBytes(instructions);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void deserialize(byte[] data) {
        try {
            instructions = PofJson.mapper().readValue(data, new TypeReference<List<PofInstruction>>() { });
        } catch (IOException e) {
            throw new IllegalArgumentException("bad POF instruction extension: " + e.getMessage(), e);
        }
    }

    /** Equal when they serialize the same: the instructions are plain wire records. */
    @Override
    public boolean equals(Object o) {
        return o instanceof PofInstructionTreatment
                && Arrays.equals(serialize(), ((PofInstructionTreatment) o).serialize());
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(serialize());
    }

    @Override
    public String toString() {
        return "POF" + new String(serialize(), java.nio.charset.StandardCharsets.UTF_8);
    }
}
