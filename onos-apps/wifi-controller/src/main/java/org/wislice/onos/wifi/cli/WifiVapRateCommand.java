package org.wislice.onos.wifi.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.karaf.shell.api.action.Argument;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Option;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.onosproject.cli.AbstractShellCommand;
import org.wislice.onos.agent.ControllerException;
import org.wislice.onos.agent.Json;
import org.wislice.onos.wifi.api.WifiService;

/** Changes a running vAP's rate limit (stored as desired state and sent to its agent as updateVap). */
@Service
@Command(scope = "onos", name = "wifi-vap-rate",
        description = "Changes a vAP's rate limit: caps in kbps (0 = uncapped) and optional guarantees")
public class WifiVapRateCommand extends AbstractShellCommand {
    @Argument(index = 0, name = "vapId", required = true)
    String vapId = null;
    @Argument(index = 1, name = "downKbps", description = "down cap in kbps, 0 = uncapped", required = true)
    long downKbps = 0;
    @Argument(index = 2, name = "upKbps", description = "up cap in kbps, 0 = uncapped", required = true)
    long upKbps = 0;
    @Option(name = "--down-guaranteed", description = "guaranteed down rate in kbps")
    long downGuaranteedKbps = 0;
    @Option(name = "--up-guaranteed", description = "guaranteed up rate in kbps")
    long upGuaranteedKbps = 0;

    @Override
    protected void doExecute() {
        ObjectNode rateLimit = Json.object().put("down_kbps", downKbps).put("up_kbps", upKbps);
        if (downGuaranteedKbps != 0) {
            rateLimit.put("down_guaranteed_kbps", downGuaranteedKbps);
        }
        if (upGuaranteedKbps != 0) {
            rateLimit.put("up_guaranteed_kbps", upGuaranteedKbps);
        }
        try {
            ObjectNode vap = get(WifiService.class).updateRateLimit(vapId, rateLimit);
            print("%s on %s: rate_limit=%s state=%s", vapId, vap.path("agent_id").asText(), vap.path("rate_limit"),
                  vap.path("state").asText());
        } catch (ControllerException e) {
            error("%s: %s", e.code(), e.getMessage());
        }
    }
}
