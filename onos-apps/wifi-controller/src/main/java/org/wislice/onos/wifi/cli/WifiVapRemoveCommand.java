package org.wislice.onos.wifi.cli;

import org.apache.karaf.shell.api.action.Argument;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.onosproject.cli.AbstractShellCommand;
import org.wislice.onos.agent.ControllerException;
import org.wislice.onos.wifi.api.WifiService;

/** Removes a vAP. */
@Service
@Command(scope = "onos", name = "wifi-vap-remove", description = "Removes a vAP from a WiSlice ap-agent")
public class WifiVapRemoveCommand extends AbstractShellCommand {
    @Argument(index = 0, name = "agentId", required = true)
    String agentId = null;
    @Argument(index = 1, name = "vapId", required = true)
    String vapId = null;

    @Override
    protected void doExecute() {
        try {
            get(WifiService.class).removeVap(agentId, vapId);
            print("removed %s from %s", vapId, agentId);
        } catch (ControllerException e) {
            error("%s: %s", e.code(), e.getMessage());
        }
    }
}
