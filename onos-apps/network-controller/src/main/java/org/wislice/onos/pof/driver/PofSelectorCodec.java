package org.wislice.onos.pof.driver;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.onosproject.codec.CodecContext;
import org.onosproject.net.driver.AbstractHandlerBehaviour;
import org.onosproject.net.flow.ExtensionSelectorCodec;
import org.onosproject.net.flow.criteria.ExtensionSelector;
import org.wislice.onos.pof.wire.PofJson;
import org.wislice.onos.pof.wire.PofMatchX;

import java.util.List;

/** Driver behaviour: the POF match extension in ONOS JSON as {"pof_matches": [...]} (spec/pof notation). */
public class PofSelectorCodec extends AbstractHandlerBehaviour implements ExtensionSelectorCodec {
    static final String MATCHES = "pof_matches";

    @Override
    public ObjectNode encode(ExtensionSelector selector, CodecContext context) {
        ObjectNode node = PofJson.mapper().createObjectNode();
        node.set(MATCHES, PofJson.toTree(((PofMatchSelector) selector).matches()));
        return node;
    }

    @Override
    public ExtensionSelector decode(ObjectNode json, CodecContext context) {
        List<PofMatchX> matches = PofJson.mapper().convertValue(json.path(MATCHES),
                new TypeReference<List<PofMatchX>>() { });
        return new PofMatchSelector(matches);
    }
}
