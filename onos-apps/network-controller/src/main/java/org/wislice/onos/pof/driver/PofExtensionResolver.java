package org.wislice.onos.pof.driver;

import org.onosproject.net.behaviour.ExtensionSelectorResolver;
import org.onosproject.net.behaviour.ExtensionTreatmentResolver;
import org.onosproject.net.driver.AbstractHandlerBehaviour;
import org.onosproject.net.flow.criteria.ExtensionSelector;
import org.onosproject.net.flow.criteria.ExtensionSelectorType;
import org.onosproject.net.flow.instructions.ExtensionTreatment;
import org.onosproject.net.flow.instructions.ExtensionTreatmentType;

/** Driver behaviour: empty POF extensions by type, for the stores' deserializers. */
public class PofExtensionResolver extends AbstractHandlerBehaviour
        implements ExtensionSelectorResolver, ExtensionTreatmentResolver {

    @Override
    public ExtensionSelector getExtensionSelector(ExtensionSelectorType type) {
        if (PofMatchSelector.TYPE.equals(type)) {
            return new PofMatchSelector();
        }
        throw new UnsupportedOperationException("POF driver has no selector extension " + type);
    }

    @Override
    public ExtensionTreatment getExtensionInstruction(ExtensionTreatmentType type) {
        if (PofInstructionTreatment.TYPE.equals(type)) {
            return new PofInstructionTreatment();
        }
        throw new UnsupportedOperationException("POF driver has no treatment extension " + type);
    }
}
