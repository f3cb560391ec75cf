package org.wislice.onos.agent;

import com.fasterxml.jackson.databind.JsonNode;

/** One check of a JSON node against the protocol: throws ProtocolException naming the offending path. */
@FunctionalInterface
public interface JsonCheck {
    void check(JsonNode node, String path) throws ProtocolException;
}
