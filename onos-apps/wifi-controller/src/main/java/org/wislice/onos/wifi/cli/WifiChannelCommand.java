package org.wislice.onos.wifi.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.karaf.shell.api.action.Argument;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.onosproject.cli.AbstractShellCommand;
import org.wislice.onos.agent.ControllerException;
import org.wislice.onos.wifi.api.WifiService;

/** Moves a radio to another channel. */
@Service
@Command(scope = "onos", name = "wifi-channel", description = "Changes the channel of an ap-agent's radio")
public class WifiChannelCommand extends AbstractShellCommand {
    @Argument(index = 0, name = "agentId", required = true)
    String agentId = null;
    @Argument(index = 1, name = "radio", required = true)
    String radio = null;
    @Argument(index = 2, name = "channel", required = true)
    int channel = 0;

    @Override
    protected void doExecute() {
        try {
            ObjectNode r = get(WifiService.class).changeChannel(agentId, radio, channel);
            print("%s on %s now on channel %s", radio, agentId, r.path("channel").asText());
        } catch (ControllerException e) {
            error("%s: %s", e.code(), e.getMessage());
        }
    }
}
