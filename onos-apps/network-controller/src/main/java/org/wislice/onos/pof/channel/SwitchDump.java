package org.wislice.onos.pof.channel;

import org.wislice.onos.pof.wire.FlowMod;
import org.wislice.onos.pof.wire.PofBody;
import org.wislice.onos.pof.wire.PofCodecException;
import org.wislice.onos.pof.wire.PofMessage;
import org.wislice.onos.pof.wire.TableMod;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A switch's answer to QUERYALL (spec/pof "Messages" 5): its tables, flows and meters as the messages that built
 * them, collected until QUERYALL_FIN. The RESOURCE_REPORT and PORT_STATUS it repeats are the handshake's and are
 * not kept. Read the lists only once {@link PofSession#queryAll()} has completed.
 */
public final class SwitchDump {
    /** Messages one dump may take: a bound against a runaway switch (pof-switch holds at most ~70k entries). */
    static final int MAX_MESSAGES = 200_000;

    public final List<TableMod> tables = new ArrayList<>();
    public final List<FlowMod> flows = new ArrayList<>();
    public final List<PofBody.MeterMod> meters = new ArrayList<>();
    final CompletableFuture<SwitchDump> future = new CompletableFuture<>();
    private int messages;

    /** Takes a message carrying the request's xid; false when it is no part of a dump (the listener gets it). */
    boolean add(PofMessage msg) {
        switch (msg.type()) {
            case QUERYALL_FIN:
                future.complete(this);
                return true;
            case ERROR:
                future.completeExceptionally(new PofErrorException(msg.body(PofBody.Error.class)));
                return true;
            case TABLE_MOD:
                tables.add(msg.body(TableMod.class));
                break;
            case FLOW_MOD:
                flows.add(msg.body(FlowMod.class));
                break;
            case METER_MOD:
                meters.add(msg.body(PofBody.MeterMod.class));
                break;
            case RESOURCE_REPORT:
            case PORT_STATUS:
                break;
            default:
                return false;
        }
        if (++messages > MAX_MESSAGES) {
            future.completeExceptionally(new PofCodecException("QUERYALL: no QUERYALL_FIN after " + MAX_MESSAGES
                    + " messages"));
        }
        return true;
    }
}
