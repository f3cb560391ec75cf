package org.wislice.onos.pof.driver;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.codec.CodecContext;
import org.onosproject.net.driver.AbstractHandlerBehaviour;
import org.onosproject.net.flow.ExtensionTreatmentCodec;
import org.onosproject.net.flow.instructions.ExtensionTreatment;
import org.wislice.onos.pof.wire.PofInstruction;
import org.wislice.onos.pof.wire.PofJson;

import java.util.List;

/** Driver behaviour: the POF instruction extension in ONOS JSON as {"pof_instructions": [...]}. */
public class PofTreatmentCodec extends AbstractHandlerBehaviour implements ExtensionTreatmentCodec {
    static final String INSTRUCTIONS = "pof_instructions";

    @Override
    public ObjectNode encode(ExtensionTreatment treatment, CodecContext context) {
        ObjectNode node = PofJson.mapper().createObjectNode();
        node.set(INSTRUCTIONS, PofJson.toTree(((PofInstructionTreatment) treatment).instructions()));
        return node;
    }

    @Override
    public ExtensionTreatment decode(ObjectNode json, CodecContext context) {
        List<PofInstruction> instructions = PofJson.mapper().convertValue(json.path(INSTRUCTIONS),
                new TypeReference<List<PofInstruction>>() { });
        return new PofInstructionTreatment(instructions);
    }
}
