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

/** Creates a vAP on an agent. */
@Service
@Command(scope = "onos", name = "wifi-vap-add", description = "Creates a vAP on a WiSlice ap-agent")
public class WifiVapAddCommand extends AbstractShellCommand {
    @Argument(index = 0, name = "agentId", required = true)
    String agentId = null;
    @Argument(index = 1, name = "vapId", required = true)
    String vapId = null;
    @Argument(index = 2, name = "radio", required = true)
    String radio = null;
    @Argument(index = 3, name = "ssid", required = true)
    String ssid = null;
    @Argument(index = 4, name = "tenantId", required = true)
    int tenantId = 0;
    @Argument(index = 5, name = "sliceId", required = true)
    String sliceId = null;
    @Option(name = "--mode", description = "open | wpa2-psk | wpa3-sae | wpa2-wpa3")
    String mode = "open";
    @Option(name = "--passphrase")
    String passphrase = null;
    @Option(name = "--down-kbps")
    int downKbps = 0;
    @Option(name = "--up-kbps")
    int upKbps = 0;

    @Override
    protected void doExecute() {
        ObjectNode spec = Json.object().put("vap_id", vapId).put("radio", radio).put("ssid", ssid)
                .put("tenant_id", tenantId).put("slice_id", sliceId);
        ObjectNode security = spec.putObject("security").put("mode", mode);
        if (passphrase != null) {
            security.put("passphrase", passphrase);
        }
        spec.putObject("rate_limit").put("down_kbps", downKbps).put("up_kbps", upKbps);
        try {
            ObjectNode vap = get(WifiService.class).createVap(agentId, spec);
            print("created %s on %s: ifname=%s bssid=%s state=%s", vapId, agentId, vap.path("ifname").asText(),
                  vap.path("bssid").asText(), vap.path("state").asText());
        } catch (ControllerException e) {
            error("%s: %s", e.code(), e.getMessage());
        }
    }
}
