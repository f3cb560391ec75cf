package org.wislice.onos.pof.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.karaf.shell.api.action.Argument;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Option;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.onosproject.cli.AbstractShellCommand;
import org.wislice.onos.pof.api.PofSliceService;
import org.wislice.onos.pof.api.SliceException;
import org.wislice.onos.pof.api.SlicePath;

import java.util.List;

/** Installs a slice path; hops are DEVICE/IN_PORT/OUT_PORT in forward order. */
@Service
@Command(scope = "onos", name = "pof-slice-add", description = "Installs a slice path (tag + meters + flows)")
public class PofSliceAddCommand extends AbstractShellCommand {

    @Argument(index = 0, name = "sliceId", description = "slice id", required = true)
    String sliceId;

    @Argument(index = 1, name = "tenantId", description = "tenant id (0-65535)", required = true)
    int tenantId;

    @Argument(index = 2, name = "rateKbps", description = "meter rate per hop in kbps, 0 = unmetered",
            required = true)
    long rateKbps;

    @Argument(index = 3, name = "hops", description = "hops as pof:00000001/IN_PORT/OUT_PORT", required = true,
            multiValued = true)
    List<String> hops;

    @Option(name = "--tag", description = "16-bit slice tag (default: the controller picks)")
    int tag;

    @Option(name = "--one-way", description = "install the forward direction only")
    boolean oneWay;

    @Option(name = "--best-effort", description = "accept switches that do not enforce meter rates "
            + "(require_enforcement false)")
    boolean bestEffort;

    @Option(name = "--latency-class", description = "best_effort (default), low or ultra_low: the meters get the "
            + "switches' priority queue where they have one (needs a rate)")
    String latencyClass = "best_effort";

    @Override
    protected void doExecute() {
        ObjectNode req = mapper().createObjectNode().put("slice_id", sliceId).put("tenant_id", tenantId)
                .put("rate_kbps", rateKbps).put("bidirectional", !oneWay).put("require_enforcement", !bestEffort)
                .put("latency_class", latencyClass);
        if (tag != 0) {
            req.put("tag", tag);
        }
        ArrayNode hs = req.putArray("hops");
        try {
            for (String hop : hops) {
                String[] parts = hop.split("/");
                if (parts.length != 3) {
                    throw SliceException.badRequest("hop '" + hop + "' is not DEVICE/IN_PORT/OUT_PORT");
                }
                hs.addObject().put("device_id", parts[0]).put("in_port", Integer.parseInt(parts[1]))
                        .put("out_port", Integer.parseInt(parts[2]));
            }
            SlicePath installed = get(PofSliceService.class).addSlice(SlicePath.fromJson(req));
            print("%s", installed.toJson(mapper()).toString());
        } catch (SliceException | NumberFormatException e) {
            error("pof-slice-add: %s", e.getMessage());
        }
    }
}
