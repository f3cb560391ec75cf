package org.wislice.onos.nfv.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.onosproject.cli.AbstractShellCommand;
import org.wislice.onos.agent.Json;
import org.wislice.onos.nfv.api.NfvService;

import java.util.List;

/** Lists the vNFs. */
@Service
@Command(scope = "onos", name = "nfv-vnfs", description = "Lists WiSlice vNFs")
public class NfvVnfsCommand extends AbstractShellCommand {
    @Override
    protected void doExecute() {
        List<ObjectNode> vnfs = get(NfvService.class).vnfs();
        if (outputJson()) {
            print("%s", Json.write(Json.MAPPER.valueToTree(vnfs)));
            return;
        }
        for (ObjectNode v : vnfs) {
            print("vnf_id=%s node=%s image=%s state=%s address=%s cpu=%s memory_mib=%s cpus=%s cpu_mode=%s",
                  v.path("vnf_id").asText(), v.path("node").asText(), v.path("image").asText(),
                  v.path("state").asText(), v.path("address").asText(), v.path("cpu").asText(),
                  v.path("memory_mib").asText(), v.path("cpus").asText("-"), v.path("cpu_mode").asText("-"));
        }
    }
}
