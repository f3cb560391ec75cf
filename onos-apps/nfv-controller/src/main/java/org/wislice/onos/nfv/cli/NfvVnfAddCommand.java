package org.wislice.onos.nfv.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.karaf.shell.api.action.Argument;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Option;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.onosproject.cli.AbstractShellCommand;
import org.wislice.onos.agent.ControllerException;
import org.wislice.onos.agent.Json;
import org.wislice.onos.nfv.api.NfvService;

/** Places and creates a vNF. */
@Service
@Command(scope = "onos", name = "nfv-vnf-add", description = "Places and creates a WiSlice vNF")
public class NfvVnfAddCommand extends AbstractShellCommand {
    @Argument(index = 0, name = "tenantId", required = true)
    int tenantId = 0;
    @Argument(index = 1, name = "instanceId", required = true)
    int instanceId = 0;
    @Argument(index = 2, name = "image", required = true)
    String image = null;
    @Option(name = "--cpu")
    double cpu = 0.5;
    @Option(name = "--memory-mib")
    int memoryMib = 128;
    @Option(name = "--chain-position")
    int chainPosition = 0;
    @Option(name = "--node", description = "pin to this MEC node")
    String node = null;
    @Option(name = "--near-ap", description = "agent_id of the slice's AP (placement distance)")
    String nearAp = null;

    @Override
    protected void doExecute() {
        ObjectNode req = Json.object().put("tenant_id", tenantId).put("instance_id", instanceId).put("image", image)
                .put("cpu", cpu).put("memory_mib", memoryMib).put("chain_position", chainPosition);
        if (node != null) {
            req.put("node", node);
        }
        if (nearAp != null) {
            req.put("near_ap", nearAp);
        }
        try {
            ObjectNode out = get(NfvService.class).createVnf(req);
            print("vNF %s on %s: state=%s address=%s", out.path("vnf").path("vnf_id").asText(),
                  out.path("node").asText(), out.path("vnf").path("state").asText(),
                  out.path("vnf").path("address").asText());
        } catch (ControllerException e) {
            error("%s: %s", e.code(), e.getMessage());
        }
    }
}
