package org.wislice.onos.pof.api;

import org.wislice.onos.pof.wire.PofMatch;
import org.wislice.onos.pof.wire.TableMod;

import java.util.List;

/**
 * The flow tables the controller creates on every switch when it connects (see README "Slicing table layout"):
 * the slice table, masked-match, global id 0 where the POF pipeline starts, keyed on the input port (metadata bits
 * 16-23) and the 32-bit slice tag word after the Ethernet addresses (bits 96-127: EtherType 0x88B5, tag); and the
 * client table, masked-match, global id 1, keyed on the tag word and the destination MAC (bits 0-47), where a slice
 * with branches sends its downlink at the switch where a branch joins (docs/mobility.md).
 */
public final class PofTableLayout {
    /** Global table id 0 = MM table 0. ONOS FlowRule.tableId() is the POF global table id. */
    public static final int SLICE_TABLE = 0;
    public static final int SLICE_TABLE_SIZE = 4000;
    public static final String SLICE_TABLE_NAME = "wislice-slice";

    /** Global table id 1 = MM table 1: a slice's downlink at a branch's join, per client (destination MAC). */
    public static final int CLIENT_TABLE = 1;
    public static final int CLIENT_TABLE_SIZE = 2000;
    public static final String CLIENT_TABLE_NAME = "wislice-client";

    /** Packet field ids are names only for the switch; this one is the tag word. */
    public static final int TAG_FIELD_ID = 1;
    public static final int DST_MAC_FIELD_ID = 2;
    public static final PofMatch IN_PORT = new PofMatch(PofMatch.METADATA, 16, 8);
    public static final PofMatch TAG_WORD = new PofMatch(TAG_FIELD_ID, 96, 32);
    public static final PofMatch DST_MAC = new PofMatch(DST_MAC_FIELD_ID, 0, 48);
    /** IEEE 802 "local experimental" EtherType: a tagged frame is still well-formed Ethernet on any wire. */
    public static final int TAG_ETHERTYPE = 0x88b5;

    private PofTableLayout() {
    }

    public static TableMod sliceTable() {
        TableMod t = new TableMod();
        t.command = TableMod.ADD;
        t.tableId = 0;
        t.tableType = TableMod.MM;
        t.size = SLICE_TABLE_SIZE;
        t.name = SLICE_TABLE_NAME;
        t.matches = List.of(IN_PORT, TAG_WORD);
        return t;
    }

    public static TableMod clientTable() {
        TableMod t = new TableMod();
        t.command = TableMod.ADD;
        t.tableId = CLIENT_TABLE;
        t.tableType = TableMod.MM;
        t.size = CLIENT_TABLE_SIZE;
        t.name = CLIENT_TABLE_NAME;
        t.matches = List.of(TAG_WORD, DST_MAC);
        return t;
    }

    /** The 4 bytes inserted after the MAC addresses: 0x88B5 then the 16-bit slice tag. */
    public static byte[] tagWord(int tag) {
        return new byte[] {(byte) (TAG_ETHERTYPE >> 8), (byte) TAG_ETHERTYPE, (byte) (tag >> 8), (byte) tag};
    }
}
