package org.wislice.onos.pof.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.onosproject.cli.AbstractShellCommand;
import org.wislice.onos.pof.api.PofSliceService;
import org.wislice.onos.pof.api.SliceBranch;
import org.wislice.onos.pof.api.SliceClient;
import org.wislice.onos.pof.api.SlicePath;

/** Lists the installed slice paths. */
@Service
@Command(scope = "onos", name = "pof-slices", description = "Lists slice paths on the POF network")
public class PofSlicesCommand extends AbstractShellCommand {

    @Override
    protected void doExecute() {
        PofSliceService service = get(PofSliceService.class);
        if (outputJson()) {
            ArrayNode arr = mapper().createArrayNode();
            service.slices().forEach(s -> arr.add(s.toJson(mapper())));
            print("%s", arr.toString());
            return;
        }
        for (SlicePath s : service.slices()) {
            StringBuilder hops = new StringBuilder();
            for (SlicePath.Hop h : s.hops) {
                hops.append(' ').append(h.deviceId).append('/').append(h.inPort).append('/').append(h.outPort);
            }
            // A branch: " branch=<id>:" and its hops; a placed client: " client=<mac>@<branch>".
            for (SliceBranch b : s.branches) {
                hops.append(" branch=").append(b.branchId).append(':');
                for (SlicePath.Hop h : b.hops) {
                    hops.append(' ').append(h.deviceId).append('/').append(h.inPort).append('/').append(h.outPort);
                }
            }
            for (SliceClient c : s.clients) {
                hops.append(" client=").append(c.mac).append('@').append(c.branch);
            }
            print("%s tenant=%d tag=%d down=%d/%d up=%d/%d bidirectional=%s meters=%d hops:%s", s.sliceId,
                    s.tenantId, s.tag, s.down.guaranteedKbps, s.down.capKbps, s.up.guaranteedKbps, s.up.capKbps,
                    s.bidirectional, s.meters.size(), hops);
        }
    }
}
