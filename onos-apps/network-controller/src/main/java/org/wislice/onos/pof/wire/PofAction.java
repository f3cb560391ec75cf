package org.wislice.onos.pof.wire;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;

import java.nio.ByteBuffer;
import java.util.Map;

/**
 * A POF action in its 48-byte slot: type u16, len u16, data[44]. Each subclass is one action type; the
 * field names are those of spec/pof (snake_case in JSON through {@link PofJson}).
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, include = JsonTypeInfo.As.EXISTING_PROPERTY, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = PofAction.Output.class, name = "OUTPUT"),
        @JsonSubTypes.Type(value = PofAction.SetField.class, name = "SET_FIELD"),
        @JsonSubTypes.Type(value = PofAction.SetFieldFromMetadata.class, name = "SET_FIELD_FROM_METADATA"),
        @JsonSubTypes.Type(value = PofAction.ModifyField.class, name = "MODIFY_FIELD"),
        @JsonSubTypes.Type(value = PofAction.AddField.class, name = "ADD_FIELD"),
        @JsonSubTypes.Type(value = PofAction.DeleteField.class, name = "DELETE_FIELD"),
        @JsonSubTypes.Type(value = PofAction.CalcChecksum.class, name = "CALC_CHECKSUM"),
        @JsonSubTypes.Type(value = PofAction.Group.class, name = "GROUP"),
        @JsonSubTypes.Type(value = PofAction.Drop.class, name = "DROP"),
        @JsonSubTypes.Type(value = PofAction.PacketIn.class, name = "PACKET_IN"),
        @JsonSubTypes.Type(value = PofAction.Counter.class, name = "COUNTER"),
})
public abstract class PofAction {
    public static final int SIZE = 48;
    public static final int MAX_PER_LIST = 6;

    public static final int OUTPUT = 0;
    public static final int SET_FIELD = 1;
    public static final int SET_FIELD_FROM_METADATA = 2;
    public static final int MODIFY_FIELD = 3;
    public static final int ADD_FIELD = 4;
    public static final int DELETE_FIELD = 5;
    public static final int CALC_CHECKSUM = 6;
    public static final int GROUP = 7;
    public static final int DROP = 8;
    public static final int PACKET_IN = 9;
    public static final int COUNTER = 10;

    /** Wire len; 0 means "4 + the data this action uses", the length the reference codecs write. */
    @JsonInclude(JsonInclude.Include.NON_DEFAULT)
    public int len;

    abstract int code();

    abstract int dataSize();

    /** Writes the data part at {@code off} (the slot start + 4). */
    abstract void writeData(ByteBuffer b, int off);

    @JsonProperty("type")
    public String typeName() {
        return NAMES.get(code());
    }

    final void write(ByteBuffer b, int off) {
        Wire.putU16(b, off, code());
        Wire.putU16(b, off + 2, len != 0 ? len : 4 + dataSize());
        writeData(b, off + 4);
    }

    static PofAction read(ByteBuffer b, int off) {
        int code = Wire.u16(b, off);
        PofAction a = readData(code, b, off + 4);
        a.len = Wire.u16(b, off + 2);
        return a;
    }

    private static PofAction readData(int code, ByteBuffer b, int off) {
        switch (code) {
            case OUTPUT:
                return Output.readData(b, off);
            case SET_FIELD:
                return SetField.readData(b, off);
            case SET_FIELD_FROM_METADATA:
                return SetFieldFromMetadata.readData(b, off);
            case MODIFY_FIELD:
                return ModifyField.readData(b, off);
            case ADD_FIELD:
                return AddField.readData(b, off);
            case DELETE_FIELD:
                return DeleteField.readData(b, off);
            case CALC_CHECKSUM:
                return CalcChecksum.readData(b, off);
            case GROUP:
                return new Group(Wire.u32(b, off));
            case DROP:
                return new Drop(Wire.u32(b, off));
            case PACKET_IN:
                return new PacketIn(Wire.u32(b, off));
            case COUNTER:
                return new Counter(Wire.u32(b, off));
            default:
                throw new PofCodecException("unknown action type " + code);
        }
    }

    static void writeList(ByteBuffer b, int off, java.util.List<PofAction> actions) {
        if (actions.size() > MAX_PER_LIST) {
            throw new PofCodecException(actions.size() + " actions, at most " + MAX_PER_LIST);
        }
        for (int i = 0; i < actions.size(); i++) {
            actions.get(i).write(b, off + i * SIZE);
        }
    }

    static java.util.List<PofAction> readList(ByteBuffer b, int off, int n) {
        if (n > MAX_PER_LIST) {
            throw new PofCodecException(n + " actions, at most " + MAX_PER_LIST);
        }
        java.util.List<PofAction> out = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(read(b, off + i * SIZE));
        }
        return out;
    }

    private static final Map<Integer, String> NAMES = Map.ofEntries(
            Map.entry(OUTPUT, "OUTPUT"), Map.entry(SET_FIELD, "SET_FIELD"),
            Map.entry(SET_FIELD_FROM_METADATA, "SET_FIELD_FROM_METADATA"), Map.entry(MODIFY_FIELD, "MODIFY_FIELD"),
            Map.entry(ADD_FIELD, "ADD_FIELD"), Map.entry(DELETE_FIELD, "DELETE_FIELD"),
            Map.entry(CALC_CHECKSUM, "CALC_CHECKSUM"), Map.entry(GROUP, "GROUP"), Map.entry(DROP, "DROP"),
            Map.entry(PACKET_IN, "PACKET_IN"), Map.entry(COUNTER, "COUNTER"));

    /** Writes either a u32 (value) or a match (field) at {@code off}: the "{u32 | match}" unions. */
    static void writeValueOrField(ByteBuffer b, int off, boolean byField, Long value, PofMatch field) {
        if (byField) {
            if (field == null) {
                throw new PofCodecException("field missing");
            }
            field.write(b, off);
        } else {
            Wire.putU32(b, off, value == null ? 0 : value);
        }
    }

    /** OUTPUT (16): port_type u8, pad, metadata_offset, metadata_len (bits), packet_offset (bytes), port@8. */
    public static class Output extends PofAction {
        public int portType;
        public int metadataOffset;
        public int metadataLen;
        public int packetOffset;
        /** (slot << 16) | port when port_type is 0; 255 floods. */
        public Long value;
        /** The field holding the port when port_type is 1. */
        public PofMatch field;

        public Output() {
        }

        public Output(long port) {
            this.value = port;
        }

        @Override
        int code() {
            return OUTPUT;
        }

        @Override
        int dataSize() {
            return 16;
        }

        @Override
        void writeData(ByteBuffer b, int off) {
            Wire.putU8(b, off, portType);
            Wire.putU16(b, off + 2, metadataOffset);
            Wire.putU16(b, off + 4, metadataLen);
            Wire.putU16(b, off + 6, packetOffset);
            writeValueOrField(b, off + 8, portType == 1, value, field);
        }

        static Output readData(ByteBuffer b, int off) {
            Output a = new Output();
            a.portType = Wire.u8(b, off);
            a.metadataOffset = Wire.u16(b, off + 2);
            a.metadataLen = Wire.u16(b, off + 4);
            a.packetOffset = Wire.u16(b, off + 6);
            if (a.portType == 1) {
                a.field = PofMatch.read(b, off + 8);
            } else {
                a.value = Wire.u32(b, off + 8);
            }
            return a;
        }
    }

    /** SET_FIELD (40): one match_x, the field and the value to write under the mask. */
    public static class SetField extends PofAction {
        public PofMatchX field;

        public SetField() {
        }

        public SetField(PofMatchX field) {
            this.field = field;
        }

        @Override
        int code() {
            return SET_FIELD;
        }

        @Override
        int dataSize() {
            return PofMatchX.SIZE;
        }

        @Override
        void writeData(ByteBuffer b, int off) {
            field.write(b, off);
        }

        static SetField readData(ByteBuffer b, int off) {
            return new SetField(PofMatchX.read(b, off));
        }
    }

    /** SET_FIELD_FROM_METADATA (16): match, metadata_offset u16@8. */
    public static class SetFieldFromMetadata extends PofAction {
        public PofMatch field;
        public int metadataOffset;

        @Override
        int code() {
            return SET_FIELD_FROM_METADATA;
        }

        @Override
        int dataSize() {
            return 16;
        }

        @Override
        void writeData(ByteBuffer b, int off) {
            field.write(b, off);
            Wire.putU16(b, off + 8, metadataOffset);
        }

        static SetFieldFromMetadata readData(ByteBuffer b, int off) {
            SetFieldFromMetadata a = new SetFieldFromMetadata();
            a.field = PofMatch.read(b, off);
            a.metadataOffset = Wire.u16(b, off + 8);
            return a;
        }
    }

    /** MODIFY_FIELD (16): match, i32 increment@8. */
    public static class ModifyField extends PofAction {
        public PofMatch field;
        public int increment;

        @Override
        int code() {
            return MODIFY_FIELD;
        }

        @Override
        int dataSize() {
            return 16;
        }

        @Override
        void writeData(ByteBuffer b, int off) {
            field.write(b, off);
            b.putInt(off + 8, increment);
        }

        static ModifyField readData(ByteBuffer b, int off) {
            ModifyField a = new ModifyField();
            a.field = PofMatch.read(b, off);
            a.increment = b.getInt(off + 8);
            return a;
        }
    }

    /** ADD_FIELD (24): tag_id u16, tag_pos u16 (bits), tag_len u32 (bits), tag_value[16]@8. */
    public static class AddField extends PofAction {
        public int tagId;
        public int tagPos;
        public long tagLen;
        @JsonSerialize(using = Hex.Serializer.class)
        @JsonDeserialize(using = Hex.Deserializer.class)
        public byte[] tagValue = new byte[PofMatchX.VALUE_SIZE];

        public AddField() {
        }

        public AddField(int tagId, int tagPos, long tagLen, byte[] tagValue) {
            this.tagId = tagId;
            this.tagPos = tagPos;
            this.tagLen = tagLen;
            this.tagValue = Wire.fixed(tagValue, PofMatchX.VALUE_SIZE);
        }

        @Override
        int code() {
            return ADD_FIELD;
        }

        @Override
        int dataSize() {
            return 24;
        }

        @Override
        void writeData(ByteBuffer b, int off) {
            Wire.putU16(b, off, tagId);
            Wire.putU16(b, off + 2, tagPos);
            Wire.putU32(b, off + 4, tagLen);
            Wire.putBytes(b, off + 8, tagValue, PofMatchX.VALUE_SIZE, "tag_value");
        }

        static AddField readData(ByteBuffer b, int off) {
            return new AddField(Wire.u16(b, off), Wire.u16(b, off + 2), Wire.u32(b, off + 4),
                    Wire.bytes(b, off + 8, PofMatchX.VALUE_SIZE));
        }
    }

    /** DELETE_FIELD (16): tag_pos u16, len_type u8, {u32 length in bits | match}@8. */
    public static class DeleteField extends PofAction {
        public int tagPos;
        public int lenType;
        public Long value;
        public PofMatch field;

        public DeleteField() {
        }

        public DeleteField(int tagPos, long lengthBits) {
            this.tagPos = tagPos;
            this.value = lengthBits;
        }

        @Override
        int code() {
            return DELETE_FIELD;
        }

        @Override
        int dataSize() {
            return 16;
        }

        @Override
        void writeData(ByteBuffer b, int off) {
            Wire.putU16(b, off, tagPos);
            Wire.putU8(b, off + 2, lenType);
            writeValueOrField(b, off + 8, lenType == 1, value, field);
        }

        static DeleteField readData(ByteBuffer b, int off) {
            DeleteField a = new DeleteField();
            a.tagPos = Wire.u16(b, off);
            a.lenType = Wire.u8(b, off + 2);
            if (a.lenType == 1) {
                a.field = PofMatch.read(b, off + 8);
            } else {
                a.value = Wire.u32(b, off + 8);
            }
            return a;
        }
    }

    /** CALC_CHECKSUM (16): two u8 position types, then checksum_pos, checksum_len, calc_start, calc_len. */
    public static class CalcChecksum extends PofAction {
        public int checksumPosType;
        public int calcPosType;
        public int checksumPos;
        public int checksumLen;
        public int calcStart;
        public int calcLen;

        @Override
        int code() {
            return CALC_CHECKSUM;
        }

        @Override
        int dataSize() {
            return 16;
        }

        @Override
        void writeData(ByteBuffer b, int off) {
            Wire.putU8(b, off, checksumPosType);
            Wire.putU8(b, off + 1, calcPosType);
            Wire.putU16(b, off + 2, checksumPos);
            Wire.putU16(b, off + 4, checksumLen);
            Wire.putU16(b, off + 6, calcStart);
            Wire.putU16(b, off + 8, calcLen);
        }

        static CalcChecksum readData(ByteBuffer b, int off) {
            CalcChecksum a = new CalcChecksum();
            a.checksumPosType = Wire.u8(b, off);
            a.calcPosType = Wire.u8(b, off + 1);
            a.checksumPos = Wire.u16(b, off + 2);
            a.checksumLen = Wire.u16(b, off + 4);
            a.calcStart = Wire.u16(b, off + 6);
            a.calcLen = Wire.u16(b, off + 8);
            return a;
        }
    }

    /** GROUP, DROP, PACKET_IN and COUNTER (8): one u32. */
    public abstract static class OneValue extends PofAction {
        public long value;

        @Override
        int dataSize() {
            return 8;
        }

        @Override
        void writeData(ByteBuffer b, int off) {
            Wire.putU32(b, off, value);
        }
    }

    /** GROUP: value is the group id. */
    public static class Group extends OneValue {
        public Group() {
        }

        public Group(long value) {
            this.value = value;
        }

        @Override
        int code() {
            return GROUP;
        }
    }

    /** DROP: value is the reason code. */
    public static class Drop extends OneValue {
        public Drop() {
        }

        public Drop(long value) {
            this.value = value;
        }

        @Override
        int code() {
            return DROP;
        }
    }

    /** PACKET_IN: value is the reason code. */
    public static class PacketIn extends OneValue {
        public PacketIn() {
        }

        public PacketIn(long value) {
            this.value = value;
        }

        @Override
        int code() {
            return PACKET_IN;
        }
    }

    /** COUNTER: value is the counter id. */
    public static class Counter extends OneValue {
        public Counter() {
        }

        public Counter(long value) {
            this.value = value;
        }

        @Override
        int code() {
            return COUNTER;
        }
    }
}
