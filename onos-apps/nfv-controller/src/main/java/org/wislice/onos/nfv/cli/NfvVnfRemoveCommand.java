package org.wislice.onos.nfv.cli;

import org.apache.karaf.shell.api.action.Argument;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.onosproject.cli.AbstractShellCommand;
import org.wislice.onos.agent.ControllerException;
import org.wislice.onos.nfv.api.NfvService;

/** Removes a vNF. */
@Service
@Command(scope = "onos", name = "nfv-vnf-remove", description = "Removes a WiSlice vNF")
public class NfvVnfRemoveCommand extends AbstractShellCommand {
    @Argument(index = 0, name = "vnfId", required = true)
    long vnfId = 0;

    @Override
    protected void doExecute() {
        try {
            get(NfvService.class).removeVnf(vnfId);
            print("removed vNF %d", vnfId);
        } catch (ControllerException e) {
            error("%s: %s", e.code(), e.getMessage());
        }
    }
}
