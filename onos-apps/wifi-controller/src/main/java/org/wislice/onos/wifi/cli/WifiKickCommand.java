package org.wislice.onos.wifi.cli;

import org.apache.karaf.shell.api.action.Argument;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.onosproject.cli.AbstractShellCommand;
import org.wislice.onos.agent.ControllerException;
import org.wislice.onos.wifi.api.WifiService;

/** Disassociates a client. */
@Service
@Command(scope = "onos", name = "wifi-kick", description = "Disassociates a WiFi client")
public class WifiKickCommand extends AbstractShellCommand {
    @Argument(index = 0, name = "agentId", required = true)
    String agentId = null;
    @Argument(index = 1, name = "mac", required = true)
    String mac = null;

    @Override
    protected void doExecute() {
        try {
            get(WifiService.class).kickClient(agentId, mac);
            print("kicked %s from %s", mac, agentId);
        } catch (ControllerException e) {
            error("%s: %s", e.code(), e.getMessage());
        }
    }
}
