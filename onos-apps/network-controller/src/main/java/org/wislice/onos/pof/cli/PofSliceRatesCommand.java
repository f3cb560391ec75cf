package org.wislice.onos.pof.cli;

import org.apache.karaf.shell.api.action.Argument;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Option;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.onosproject.cli.AbstractShellCommand;
import org.wislice.onos.pof.api.PofSliceService;
import org.wislice.onos.pof.api.SliceException;
import org.wislice.onos.pof.api.SlicePath;
import org.wislice.onos.pof.api.SliceRates;

/** Changes a live slice's rates; a direction not given keeps its rates. */
@Service
@Command(scope = "onos", name = "pof-slice-rates",
        description = "Changes a slice path's rates per direction (GUARANTEED/CAP kbps, cap 0 = uncapped)")
public class PofSliceRatesCommand extends AbstractShellCommand {

    @Argument(index = 0, name = "sliceId", description = "slice id", required = true)
    String sliceId;

    @Option(name = "--down", description = "down rates as GUARANTEED_KBPS/CAP_KBPS (0/0 = unmetered)")
    String down;

    @Option(name = "--up", description = "up rates as GUARANTEED_KBPS/CAP_KBPS (0/0 = unmetered)")
    String up;

    @Override
    protected void doExecute() {
        try {
            if (down == null && up == null) {
                throw SliceException.badRequest("give --down and/or --up");
            }
            SlicePath updated = get(PofSliceService.class).updateRates(sliceId, rates(down, "--down"),
                    rates(up, "--up"));
            print("%s", updated.toJson(mapper()).toString());
        } catch (SliceException e) {
            error("pof-slice-rates: %s", e.getMessage());
        }
    }

    private static SliceRates rates(String value, String option) {
        if (value == null) {
            return null;
        }
        String[] parts = value.split("/");
        try {
            if (parts.length != 2) {
                throw new NumberFormatException();
            }
            return new SliceRates(Long.parseLong(parts[0]), Long.parseLong(parts[1]));
        } catch (NumberFormatException e) {
            throw SliceException.badRequest(option + " must be GUARANTEED_KBPS/CAP_KBPS, e.g. 5000/20000");
        }
    }
}
