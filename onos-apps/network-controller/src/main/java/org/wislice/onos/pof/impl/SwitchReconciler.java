package org.wislice.onos.pof.impl;

import org.wislice.onos.pof.api.PofTableLayout;
import org.wislice.onos.pof.channel.PofSession;
import org.wislice.onos.pof.channel.SwitchDump;
import org.wislice.onos.pof.wire.FlowMod;
import org.wislice.onos.pof.wire.PofBody;
import org.wislice.onos.pof.wire.PofCodec;
import org.wislice.onos.pof.wire.PofMessage;
import org.wislice.onos.pof.wire.PofType;
import org.wislice.onos.pof.wire.ResourceReport;
import org.wislice.onos.pof.wire.TableMod;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What the flow provider makes of the state a switch kept from an earlier controller session (spec/pof
 * "Controller sessions": pof-switch keeps it by default). When the switch still has the slice and client tables
 * as this controller creates them, they stay and so do their entries: ONOS claims each by flow id (the POF
 * cookie) when it (re)adds the rule, and the entry goes on forwarding all along, so a switch that reconnects to
 * another controller node (failover) or to a restarted ONOS loses no packet. Otherwise (a switch that resets on
 * connect, another layout, no QUERYALL answer) both tables are recreated empty and ONOS re-adds every rule.
 */
final class SwitchReconciler {
    private SwitchReconciler() {
    }

    /** True when the dump holds the slice and client tables with this controller's layout. */
    static boolean hasSliceTables(SwitchDump dump) {
        return has(dump, PofTableLayout.sliceTable()) && has(dump, PofTableLayout.clientTable());
    }

    private static boolean has(SwitchDump dump, TableMod want) {
        return dump.tables.stream().anyMatch(t -> t.tableType == want.tableType && t.tableId == want.tableId
                && t.size == want.size && t.matches.equals(want.matches));
    }

    /** DELETE then ADD of both tables ("no such table" for a DELETE is a harmless ERROR). */
    static List<PofMessage> recreateTables(PofSession session) {
        List<PofMessage> msgs = new ArrayList<>();
        for (TableMod table : List.of(PofTableLayout.sliceTable(), PofTableLayout.clientTable())) {
            TableMod drop = PofTableLayout.sliceTable();
            drop.tableId = table.tableId;
            drop.command = TableMod.DELETE;
            msgs.add(new PofMessage(PofType.TABLE_MOD, session.nextXid(), drop));
            msgs.add(new PofMessage(PofType.TABLE_MOD, session.nextXid(), table));
        }
        return msgs;
    }

    /** The global table id (FlowRule.tableId()) of a FLOW_MOD's table type and index within the type. */
    static int globalTable(FlowMod f, ResourceReport resources) {
        for (int global = 0; global < 256; global++) {
            int[] located;
            try {
                located = PofFlowTranslator.locateTable(global, resources);
            } catch (IllegalArgumentException beyond) {
                break;
            }
            if (located[0] == f.tableType && located[1] == f.tableId) {
                return global;
            }
        }
        return -1;
    }

    /** The same entry, whatever the command that carried it (ADD, or MODIFY as the switch last took it). */
    static boolean sameEntry(FlowMod a, FlowMod b) {
        return Arrays.equals(withoutCommand(a), withoutCommand(b));
    }

    private static byte[] withoutCommand(FlowMod f) {
        byte[] raw = PofCodec.encode(new PofMessage(PofType.FLOW_MOD, 0, f));
        raw[PofCodec.HEADER] = 0; // command u8@0 of the body
        return raw;
    }

    /**
     * FLOW_MOD DELETE (and its counter's COUNTER_MOD DELETE) for held entries nobody claimed; their indexes and
     * counters are free again in {@code flows}.
     */
    static List<PofMessage> deleteHeld(PofSession session, DeviceFlows flows, List<DeviceFlows.Held> gone) {
        List<PofMessage> msgs = new ArrayList<>();
        for (DeviceFlows.Held h : gone) {
            FlowMod del = new FlowMod();
            del.command = FlowMod.DELETE;
            del.tableType = h.mod.tableType;
            del.tableId = h.mod.tableId;
            del.index = h.mod.index;
            del.cookie = h.mod.cookie;
            del.counterId = h.mod.counterId;
            del.priority = h.mod.priority;
            msgs.add(new PofMessage(PofType.FLOW_MOD, session.nextXid(), del));
            if (h.mod.counterId != 0) {
                msgs.add(new PofMessage(PofType.COUNTER_MOD, session.nextXid(),
                        new PofBody.Counter(PofBody.Counter.DELETE, h.mod.counterId)));
            }
            flows.free(h);
        }
        return msgs;
    }
}
