package org.wislice.onos.pof.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.onosproject.cli.AbstractShellCommand;
import org.onosproject.net.device.DeviceService;
import org.wislice.onos.pof.api.PofController;
import org.wislice.onos.pof.api.PofMeterCapabilityService;
import org.wislice.onos.pof.api.PofSwitchView;

/** Lists POF switches, their connection, whether they enforce meter rates, and their ports. */
@Service
@Command(scope = "onos", name = "pof-switches", description = "Lists POF switches and their ports")
public class PofSwitchesCommand extends AbstractShellCommand {

    @Override
    protected void doExecute() {
        ArrayNode switches = PofSwitchView.switches(mapper(), get(PofController.class), get(DeviceService.class),
                get(PofMeterCapabilityService.class));
        if (outputJson()) {
            print("%s", switches.toString());
            return;
        }
        for (JsonNode s : switches) {
            StringBuilder ports = new StringBuilder();
            for (JsonNode p : s.path("ports")) {
                ports.append(' ').append(p.path("port_id").asInt()).append(':').append(p.path("name").asText())
                        .append(p.path("enabled").asBoolean() ? "(up)" : "(down)");
            }
            print("%s dev_id=%d address=%s connected=%s meters_enforced=%s(%s) ports:%s",
                    s.path("device_id").asText(), s.path("dev_id").asLong(), s.path("address").asText(),
                    s.path("connected").asBoolean(), s.path("meters_enforced").asBoolean(),
                    s.path("meters_enforced_source").asText(), ports);
        }
    }
}
