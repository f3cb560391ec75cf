package org.wislice.onos.wifi.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.onosproject.cli.AbstractShellCommand;
import org.wislice.onos.agent.Json;
import org.wislice.onos.wifi.api.WifiService;

import java.util.List;

/** Lists the ap-agents. */
@Service
@Command(scope = "onos", name = "wifi-agents", description = "Lists WiSlice ap-agents")
public class WifiAgentsCommand extends AbstractShellCommand {
    @Override
    protected void doExecute() {
        List<ObjectNode> agents = get(WifiService.class).agents();
        if (outputJson()) {
            print("%s", Json.write(Json.MAPPER.valueToTree(agents)));
            return;
        }
        for (ObjectNode a : agents) {
            print("agent_id=%s connected=%s address=%s radios=%d vaps=%s clients=%s",
                  a.path("agent_id").asText(), a.path("connected").asBoolean(), a.path("address").asText(),
                  a.path("radios").size(), a.path("vaps").asText(), a.path("clients").asText());
        }
    }
}
