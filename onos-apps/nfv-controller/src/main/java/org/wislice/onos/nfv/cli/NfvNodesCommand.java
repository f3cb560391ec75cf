package org.wislice.onos.nfv.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.onosproject.cli.AbstractShellCommand;
import org.wislice.onos.agent.Json;
import org.wislice.onos.nfv.api.NfvService;

import java.util.List;

/** Lists the MEC nodes. */
@Service
@Command(scope = "onos", name = "nfv-nodes", description = "Lists WiSlice MEC nodes (mec-agents)")
public class NfvNodesCommand extends AbstractShellCommand {
    @Override
    protected void doExecute() {
        List<ObjectNode> nodes = get(NfvService.class).nodes();
        if (outputJson()) {
            print("%s", Json.write(Json.MAPPER.valueToTree(nodes)));
            return;
        }
        for (ObjectNode n : nodes) {
            print("agent_id=%s connected=%s capacity=%s used=%s load=%s switch_core_vnfs=%s catalog=%s",
                  n.path("agent_id").asText(), n.path("connected").asBoolean(), n.path("capacity"), n.path("used"),
                  n.path("load").asText(), n.path("switch_core_vnfs").asText(), n.path("catalog"));
        }
    }
}
