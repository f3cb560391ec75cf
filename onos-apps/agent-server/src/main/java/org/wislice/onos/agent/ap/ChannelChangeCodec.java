package org.wislice.onos.agent.ap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.wislice.onos.agent.AgentCodec;
import org.wislice.onos.agent.Fields;
import org.wislice.onos.agent.Json;
import org.wislice.onos.agent.ProtocolException;

import java.util.Set;

/** changeChannel's params: {radio, channel (1-233), cs_count? (1-255)}. */
public final class ChannelChangeCodec extends AgentCodec<ChannelChange> {

    ChannelChangeCodec() {
        super("changeChannel params");
    }

    @Override
    public void check(JsonNode p, String at) throws ProtocolException {
        Fields.object(p, at, Set.of("radio", "channel", "cs_count"), Set.of("radio", "channel"));
        Fields.string(p, "radio", at, Fields.IDENT);
        Fields.integer(p, "channel", at, 1, 233);
        Fields.integer(p, "cs_count", at, 1, 255);
    }

    @Override
    public ChannelChange read(JsonNode j) {
        return new ChannelChange(text(j, "radio"), j.get("channel").asInt(), intOrNull(j, "cs_count"));
    }

    @Override
    public ObjectNode encode(ChannelChange c) {
        ObjectNode j = Json.object().put("radio", c.radio).put("channel", c.channel);
        putIfSet(j, "cs_count", c.csCount);
        return j;
    }
}
