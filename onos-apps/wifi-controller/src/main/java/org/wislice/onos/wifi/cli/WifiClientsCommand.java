package org.wislice.onos.wifi.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.karaf.shell.api.action.Argument;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.onosproject.cli.AbstractShellCommand;
import org.wislice.onos.agent.Json;
import org.wislice.onos.wifi.api.WifiService;

import java.util.List;

/** Lists associated clients. */
@Service
@Command(scope = "onos", name = "wifi-clients", description = "Lists WiFi clients of WiSlice vAPs")
public class WifiClientsCommand extends AbstractShellCommand {
    @Argument(index = 0, name = "agentId", description = "ap-agent id (all when omitted)")
    String agentId = null;
    @Argument(index = 1, name = "vapId", description = "vAP id (all when omitted)")
    String vapId = null;

    @Override
    protected void doExecute() {
        List<ObjectNode> clients = get(WifiService.class).clients(agentId, vapId);
        if (outputJson()) {
            print("%s", Json.write(Json.MAPPER.valueToTree(clients)));
            return;
        }
        for (ObjectNode c : clients) {
            print("agent_id=%s vap_id=%s mac=%s signal_dbm=%s", c.path("agent_id").asText(),
                  c.path("vap_id").asText(), c.path("mac").asText(), c.path("signal_dbm").asText());
        }
    }
}
