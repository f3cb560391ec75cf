package org.wislice.onos.pof.wire;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A POF instruction in its 304-byte slot: type u16, len u16, pad4, data[296]@8. */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, include = JsonTypeInfo.As.EXISTING_PROPERTY, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = PofInstruction.GotoTable.class, name = "GOTO_TABLE"),
        @JsonSubTypes.Type(value = PofInstruction.WriteMetadata.class, name = "WRITE_METADATA"),
        @JsonSubTypes.Type(value = PofInstruction.WriteActions.class, name = "WRITE_ACTIONS"),
        @JsonSubTypes.Type(value = PofInstruction.ApplyActions.class, name = "APPLY_ACTIONS"),
        @JsonSubTypes.Type(value = PofInstruction.ClearActions.class, name = "CLEAR_ACTIONS"),
        @JsonSubTypes.Type(value = PofInstruction.Meter.class, name = "METER"),
        @JsonSubTypes.Type(value = PofInstruction.WriteMetadataFromPacket.class, name = "WRITE_METADATA_FROM_PACKET"),
        @JsonSubTypes.Type(value = PofInstruction.GotoDirectTable.class, name = "GOTO_DIRECT_TABLE"),
})
public abstract class PofInstruction {
    public static final int SIZE = 304;
    public static final int MAX_PER_FLOW = 6;

    public static final int GOTO_TABLE = 1;
    public static final int WRITE_METADATA = 2;
    public static final int WRITE_ACTIONS = 3;
    public static final int APPLY_ACTIONS = 4;
    public static final int CLEAR_ACTIONS = 5;
    public static final int METER = 6;
    public static final int WRITE_METADATA_FROM_PACKET = 7;
    public static final int GOTO_DIRECT_TABLE = 8;

    /** Wire len; 0 means "8 + the data this instruction uses". */
    @JsonInclude(JsonInclude.Include.NON_DEFAULT)
    public int len;

    abstract int code();

    abstract int dataSize();

    abstract void writeData(ByteBuffer b, int off);

    @JsonProperty("type")
    public String typeName() {
        return NAMES.get(code());
    }

    final void write(ByteBuffer b, int off) {
        Wire.putU16(b, off, code());
        Wire.putU16(b, off + 2, len != 0 ? len : 8 + dataSize());
        writeData(b, off + 8);
    }

    static PofInstruction read(ByteBuffer b, int off) {
        int code = Wire.u16(b, off);
        PofInstruction i = readData(code, b, off + 8);
        i.len = Wire.u16(b, off + 2);
        return i;
    }

    private static PofInstruction readData(int code, ByteBuffer b, int off) {
        switch (code) {
            case GOTO_TABLE:
                return GotoTable.readData(b, off);
            case WRITE_METADATA:
                return WriteMetadata.readData(b, off);
            case WRITE_ACTIONS:
                return ActionList.readInto(new WriteActions(), b, off);
            case APPLY_ACTIONS:
                return ActionList.readInto(new ApplyActions(), b, off);
            case CLEAR_ACTIONS:
                return new ClearActions();
            case METER:
                return new Meter(Wire.u32(b, off));
            case WRITE_METADATA_FROM_PACKET:
                return WriteMetadataFromPacket.readData(b, off);
            case GOTO_DIRECT_TABLE:
                return GotoDirectTable.readData(b, off);
            default:
                throw new PofCodecException("unsupported instruction type " + code);
        }
    }

    private static final Map<Integer, String> NAMES = Map.of(
            GOTO_TABLE, "GOTO_TABLE", WRITE_METADATA, "WRITE_METADATA", WRITE_ACTIONS, "WRITE_ACTIONS",
            APPLY_ACTIONS, "APPLY_ACTIONS", CLEAR_ACTIONS, "CLEAR_ACTIONS", METER, "METER",
            WRITE_METADATA_FROM_PACKET, "WRITE_METADATA_FROM_PACKET", GOTO_DIRECT_TABLE, "GOTO_DIRECT_TABLE");

    /** GOTO_TABLE (72): next_table_id u8 (global id), nmatch u8, packet_offset u16 (bytes), pad4, match[8]. */
    public static class GotoTable extends PofInstruction {
        public int nextTableId;
        public int packetOffset;
        public List<PofMatch> matches = new ArrayList<>();

        public GotoTable() {
        }

        public GotoTable(int nextTableId) {
            this.nextTableId = nextTableId;
        }

        @Override
        int code() {
            return GOTO_TABLE;
        }

        @Override
        int dataSize() {
            return 72;
        }

        @Override
        void writeData(ByteBuffer b, int off) {
            if (matches.size() > 8) {
                throw new PofCodecException("GOTO_TABLE with " + matches.size() + " matches, at most 8");
            }
            Wire.putU8(b, off, nextTableId);
            Wire.putU8(b, off + 1, matches.size());
            Wire.putU16(b, off + 2, packetOffset);
            for (int k = 0; k < matches.size(); k++) {
                matches.get(k).write(b, off + 8 + k * PofMatch.SIZE);
            }
        }

        static GotoTable readData(ByteBuffer b, int off) {
            GotoTable i = new GotoTable(Wire.u8(b, off));
            int n = Wire.u8(b, off + 1);
            if (n > 8) {
                throw new PofCodecException("GOTO_TABLE with " + n + " matches");
            }
            i.packetOffset = Wire.u16(b, off + 2);
            for (int k = 0; k < n; k++) {
                i.matches.add(PofMatch.read(b, off + 8 + k * PofMatch.SIZE));
            }
            return i;
        }
    }

    /** WRITE_METADATA (24): metadata_offset u16, length u16 (bits), value[16]@4. */
    public static class WriteMetadata extends PofInstruction {
        public int metadataOffset;
        public int length;
        @JsonSerialize(using = Hex.Serializer.class)
        @JsonDeserialize(using = Hex.Deserializer.class)
        public byte[] value = new byte[PofMatchX.VALUE_SIZE];

        @Override
        int code() {
            return WRITE_METADATA;
        }

        @Override
        int dataSize() {
            return 24;
        }

        @Override
        void writeData(ByteBuffer b, int off) {
            Wire.putU16(b, off, metadataOffset);
            Wire.putU16(b, off + 2, length);
            Wire.putBytes(b, off + 4, value, PofMatchX.VALUE_SIZE, "metadata value");
        }

        static WriteMetadata readData(ByteBuffer b, int off) {
            WriteMetadata i = new WriteMetadata();
            i.metadataOffset = Wire.u16(b, off);
            i.length = Wire.u16(b, off + 2);
            i.value = Wire.bytes(b, off + 4, PofMatchX.VALUE_SIZE);
            return i;
        }
    }

    /** WRITE_ACTIONS and APPLY_ACTIONS: n u8, pad7, then 6 action slots of 48 bytes. */
    public abstract static class ActionList extends PofInstruction {
        public List<PofAction> actions = new ArrayList<>();

        @Override
        int dataSize() {
            return 8 + PofAction.MAX_PER_LIST * PofAction.SIZE;
        }

        @Override
        void writeData(ByteBuffer b, int off) {
            PofAction.writeList(b, off + 8, actions);
            Wire.putU8(b, off, actions.size());
        }

        static ActionList readInto(ActionList i, ByteBuffer b, int off) {
            i.actions = PofAction.readList(b, off + 8, Wire.u8(b, off));
            return i;
        }
    }

    /** APPLY_ACTIONS: run the actions now. */
    public static class ApplyActions extends ActionList {
        public ApplyActions() {
        }

        public ApplyActions(List<PofAction> actions) {
            this.actions = new ArrayList<>(actions);
        }

        @Override
        int code() {
            return APPLY_ACTIONS;
        }
    }

    /** WRITE_ACTIONS: add the actions to the action set. */
    public static class WriteActions extends ActionList {
        @Override
        int code() {
            return WRITE_ACTIONS;
        }
    }

    /** CLEAR_ACTIONS: no data. */
    public static class ClearActions extends PofInstruction {
        @Override
        int code() {
            return CLEAR_ACTIONS;
        }

        @Override
        int dataSize() {
            return 0;
        }

        @Override
        void writeData(ByteBuffer b, int off) {
        }
    }

    /** METER (8): meter_id u32. */
    public static class Meter extends PofInstruction {
        public long meterId;

        public Meter() {
        }

        public Meter(long meterId) {
            this.meterId = meterId;
        }

        @Override
        int code() {
            return METER;
        }

        @Override
        int dataSize() {
            return 8;
        }

        @Override
        void writeData(ByteBuffer b, int off) {
            Wire.putU32(b, off, meterId);
        }
    }

    /** WRITE_METADATA_FROM_PACKET (8): metadata_offset, packet_offset, length (u16 each, bits). */
    public static class WriteMetadataFromPacket extends PofInstruction {
        public int metadataOffset;
        public int packetOffset;
        public int length;

        @Override
        int code() {
            return WRITE_METADATA_FROM_PACKET;
        }

        @Override
        int dataSize() {
            return 8;
        }

        @Override
        void writeData(ByteBuffer b, int off) {
            Wire.putU16(b, off, metadataOffset);
            Wire.putU16(b, off + 2, packetOffset);
            Wire.putU16(b, off + 4, length);
        }

        static WriteMetadataFromPacket readData(ByteBuffer b, int off) {
            WriteMetadataFromPacket i = new WriteMetadataFromPacket();
            i.metadataOffset = Wire.u16(b, off);
            i.packetOffset = Wire.u16(b, off + 2);
            i.length = Wire.u16(b, off + 4);
            return i;
        }
    }

    /** GOTO_DIRECT_TABLE (16): next_table_id u8, index_type u8, packet_offset u16, pad4, {u32 | match}@8. */
    public static class GotoDirectTable extends PofInstruction {
        public int nextTableId;
        public int indexType;
        public int packetOffset;
        public Long value;
        public PofMatch field;

        @Override
        int code() {
            return GOTO_DIRECT_TABLE;
        }

        @Override
        int dataSize() {
            return 16;
        }

        @Override
        void writeData(ByteBuffer b, int off) {
            Wire.putU8(b, off, nextTableId);
            Wire.putU8(b, off + 1, indexType);
            Wire.putU16(b, off + 2, packetOffset);
            PofAction.writeValueOrField(b, off + 8, indexType == 1, value, field);
        }

        static GotoDirectTable readData(ByteBuffer b, int off) {
            GotoDirectTable i = new GotoDirectTable();
            i.nextTableId = Wire.u8(b, off);
            i.indexType = Wire.u8(b, off + 1);
            i.packetOffset = Wire.u16(b, off + 2);
            if (i.indexType == 1) {
                i.field = PofMatch.read(b, off + 8);
            } else {
                i.value = Wire.u32(b, off + 8);
            }
            return i;
        }
    }
}
