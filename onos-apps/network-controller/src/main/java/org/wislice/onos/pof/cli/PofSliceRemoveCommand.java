package org.wislice.onos.pof.cli;

import org.apache.karaf.shell.api.action.Argument;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.onosproject.cli.AbstractShellCommand;
import org.wislice.onos.pof.api.PofSliceService;
import org.wislice.onos.pof.api.SliceException;

/** Removes a slice path's flows and meters. */
@Service
@Command(scope = "onos", name = "pof-slice-remove", description = "Removes a slice path")
public class PofSliceRemoveCommand extends AbstractShellCommand {

    @Argument(index = 0, name = "sliceId", description = "slice id", required = true)
    String sliceId;

    @Override
    protected void doExecute() {
        try {
            get(PofSliceService.class).removeSlice(sliceId);
            print("removed %s", sliceId);
        } catch (SliceException e) {
            error("pof-slice-remove: %s", e.getMessage());
        }
    }
}
