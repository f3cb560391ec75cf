package org.wislice.onos.wifi.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.karaf.shell.api.action.Argument;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.onosproject.cli.AbstractShellCommand;
import org.wislice.onos.agent.Json;
import org.wislice.onos.wifi.api.WifiService;

import java.util.List;

/** Lists vAPs, of one agent or all. */
@Service
@Command(scope = "onos", name = "wifi-vaps", description = "Lists WiSlice vAPs")
public class WifiVapsCommand extends AbstractShellCommand {
    @Argument(name = "agentId", description = "ap-agent id (all when omitted)")
    String agentId = null;

    @Override
    protected void doExecute() {
        List<ObjectNode> vaps = get(WifiService.class).vaps(agentId);
        if (outputJson()) {
            print("%s", Json.write(Json.MAPPER.valueToTree(vaps)));
            return;
        }
        for (ObjectNode v : vaps) {
            print("agent_id=%s vap_id=%s ssid=%s radio=%s state=%s bssid=%s tenant=%s slice=%s clients=%s",
                  v.path("agent_id").asText(), v.path("vap_id").asText(), v.path("ssid").asText(),
                  v.path("radio").asText(), v.path("state").asText(), v.path("bssid").asText(),
                  v.path("tenant_id").asText(), v.path("slice_id").asText(), v.path("clients").asText());
        }
    }
}
