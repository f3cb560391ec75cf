package org.wislice.onos.pof.wire;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;

import java.nio.ByteBuffer;

/**
 * The body of a POF message (everything after the 8-byte header). Fixed-size bodies are the C structs of
 * spec/pof/README.md; the small ones live here, the large ones in their own files.
 */
public abstract class PofBody {

    /** Body size in bytes as it goes on the wire. */
    abstract int wireSize();

    abstract void write(ByteBuffer b, int off);

    static void need(String what, int have, int needed) {
        if (have < needed) {
            throw new PofCodecException(what + ": body " + have + " bytes, needs " + needed);
        }
    }

    /** HELLO, FEATURES_REQUEST, GET_CONFIG_REQUEST, QUERYALL_FIN: no body. */
    public static class Empty extends PofBody {
        @Override
        int wireSize() {
            return 0;
        }

        @Override
        void write(ByteBuffer b, int off) {
        }

        static Empty read(ByteBuffer b, int off, int len) {
            return new Empty();
        }
    }

    /**
     * QUERYALL_REQUEST (8): slot_id u16@0, pad[6], as the reference switch (built with POF_MULTIPLE_SLOTS) reads it;
     * {@link #ALL_SLOTS} asks for every slot. An empty body, which earlier controllers sent, decodes as every slot
     * (spec/pof "Liberal acceptance"); this codec always sends the 8 bytes.
     */
    public static class QueryAll extends PofBody {
        public static final int SIZE = 8;
        public static final int ALL_SLOTS = 0xFFFF;
        /** ERROR SOFTWARE_FAILED / INVALID_SLOT_ID: the reference's answer to a slot it does not have. */
        public static final int SOFTWARE_FAILED = 14;
        public static final int INVALID_SLOT_ID = 0x5006;
        public int slotId = ALL_SLOTS;

        public QueryAll() {
        }

        public QueryAll(int slotId) {
            this.slotId = slotId;
        }

        @Override
        int wireSize() {
            return SIZE;
        }

        @Override
        void write(ByteBuffer b, int off) {
            Wire.putU16(b, off, slotId);
        }

        static QueryAll read(ByteBuffer b, int off, int len) {
            if (len == 0) {
                return new QueryAll(ALL_SLOTS);
            }
            need("QUERYALL_REQUEST", len, SIZE);
            return new QueryAll(Wire.u16(b, off));
        }

        /**
         * Throws the ERROR pof-switch answers a request for a slot it does not have with: it has slot 0 only, so
         * anything but 0 and every slot is SOFTWARE_FAILED / INVALID_SLOT_ID, as from the reference
         * (spec/pof/vectors/refused).
         */
        public void check() {
            if (slotId != 0 && slotId != ALL_SLOTS) {
                throw new PofCodecException("QUERYALL for slot " + slotId + ", the switch has slot 0",
                        SOFTWARE_FAILED, INVALID_SLOT_ID);
            }
        }
    }

    /** ECHO_REQUEST / ECHO_REPLY: opaque data echoed back. */
    public static class Echo extends PofBody {
        @JsonSerialize(using = Hex.Serializer.class)
        @JsonDeserialize(using = Hex.Deserializer.class)
        public byte[] data = new byte[0];

        public Echo() {
        }

        public Echo(byte[] data) {
            this.data = data.clone();
        }

        @Override
        int wireSize() {
            return data.length;
        }

        @Override
        void write(ByteBuffer b, int off) {
            Wire.putBytes(b, off, data, data.length, "echo data");
        }

        static Echo read(ByteBuffer b, int off, int len) {
            return new Echo(Wire.bytes(b, off, len));
        }
    }

    /** ERROR (272): type u16, code u16, dev_id u32, slot_id u16@8, string[256]@16. */
    public static class Error extends PofBody {
        public static final int SIZE = 272;
        public int type;
        public int code;
        public long devId;
        public int slotId;
        public String string = "";

        @Override
        int wireSize() {
            return SIZE;
        }

        @Override
        void write(ByteBuffer b, int off) {
            Wire.putU16(b, off, type);
            Wire.putU16(b, off + 2, code);
            Wire.putU32(b, off + 4, devId);
            Wire.putU16(b, off + 8, slotId);
            Wire.putCstr(b, off + 16, string, 256, "error string");
        }

        @Override
        public String toString() {
            return "ERROR(type " + type + ", code " + code + ": " + string + ")";
        }

        static Error read(ByteBuffer b, int off, int len) {
            need("ERROR", len, SIZE);
            Error e = new Error();
            e.type = Wire.u16(b, off);
            e.code = Wire.u16(b, off + 2);
            e.devId = Wire.u32(b, off + 4);
            e.slotId = Wire.u16(b, off + 8);
            e.string = Wire.cstr(b, off + 16, 256);
            return e;
        }
    }

    /** SET_CONFIG / GET_CONFIG_REPLY (8): dev_id u32, flags u16, miss_send_len u16. */
    public static class SwitchConfig extends PofBody {
        public long devId;
        public int flags;
        public int missSendLen;

        public SwitchConfig() {
        }

        public SwitchConfig(long devId, int flags, int missSendLen) {
            this.devId = devId;
            this.flags = flags;
            this.missSendLen = missSendLen;
        }

        @Override
        int wireSize() {
            return 8;
        }

        @Override
        void write(ByteBuffer b, int off) {
            Wire.putU32(b, off, devId);
            Wire.putU16(b, off + 4, flags);
            Wire.putU16(b, off + 6, missSendLen);
        }

        static SwitchConfig read(ByteBuffer b, int off, int len) {
            need("SWITCH_CONFIG", len, 8);
            return new SwitchConfig(Wire.u32(b, off), Wire.u16(b, off + 4), Wire.u16(b, off + 6));
        }
    }

    /**
     * METER_MOD (16): command u8 (ADD 0, MODIFY 1, DELETE 2), flags u8@1 (WiSlice, the reference's pad byte:
     * LATENCY 1; 0 = no class, omitted in JSON), slot_id u16@2, meter_id u32@4, rate u32@8 (peak, kbps),
     * committed_rate u32@12 (kbps; the reference's pad bytes: 0 = a single-rate meter, omitted in JSON).
     */
    public static class MeterMod extends PofBody {
        public static final int ADD = 0;
        public static final int MODIFY = 1;
        public static final int DELETE = 2;
        /** METER_MOD_FAILED / BAD_RATE: committed_rate above rate. */
        public static final int METER_MOD_FAILED = 12;
        public static final int BAD_RATE = 6;
        /** METER_MOD_FAILED / METER_EXISTS: an ADD for an id the switch holds. */
        public static final int METER_EXISTS = 1;
        /** METER_MOD_FAILED / BAD_FLAGS: a flag the switch does not know (never silently ignored). */
        public static final int BAD_FLAGS = 5;
        /** flags: a latency-class meter, served before every other class within its rate (its cap). */
        public static final int LATENCY = 0x01;
        /** The flags a WiSlice switch knows. */
        public static final int KNOWN_FLAGS = LATENCY;
        /** The largest rate: a peak of 100 Gbit/s is "uncapped", which a latency meter may not be. */
        public static final long MAX_RATE_KBPS = 100_000_000L;
        public int command;
        @JsonInclude(JsonInclude.Include.NON_DEFAULT)
        public int flags;
        public int slotId;
        public long meterId;
        public long rate;
        @JsonInclude(JsonInclude.Include.NON_DEFAULT)
        public long committedRate;

        public MeterMod() {
        }

        public MeterMod(int command, long meterId, long rateKbps) {
            this(command, meterId, rateKbps, 0);
        }

        /** A two-rate meter: peak rateKbps, committedKbps (0 = single-rate). */
        public MeterMod(int command, long meterId, long rateKbps, long committedKbps) {
            this.command = command;
            this.meterId = meterId;
            this.rate = rateKbps;
            this.committedRate = committedKbps;
        }

        @Override
        int wireSize() {
            return 16;
        }

        @Override
        void write(ByteBuffer b, int off) {
            Wire.putU8(b, off, command);
            Wire.putU8(b, off + 1, flags);
            Wire.putU16(b, off + 2, slotId);
            Wire.putU32(b, off + 4, meterId);
            Wire.putU32(b, off + 8, rate);
            Wire.putU32(b, off + 12, committedRate);
        }

        static MeterMod read(ByteBuffer b, int off, int len) {
            need("METER_MOD", len, 16);
            MeterMod m = new MeterMod(Wire.u8(b, off), Wire.u32(b, off + 4), Wire.u32(b, off + 8),
                    Wire.u32(b, off + 12));
            m.slotId = Wire.u16(b, off + 2);
            m.flags = Wire.u8(b, off + 1);
            return m;
        }

        /**
         * Throws the ERROR a switch answers this well-formed METER_MOD with when it must refuse it: METER_MOD_FAILED
         * / BAD_RATE for a committed_rate above the rate or a latency meter without a cap, BAD_FLAGS for a flag
         * the switch does not know (spec/pof/vectors/refused).
         */
        public void check() {
            if (command == DELETE) {
                return;
            }
            if (committedRate > rate) {
                throw new PofCodecException("METER_MOD: committed_rate " + committedRate + " above rate " + rate,
                        METER_MOD_FAILED, BAD_RATE);
            }
            if ((flags & ~KNOWN_FLAGS) != 0) {
                throw new PofCodecException("METER_MOD: unknown flags " + flags, METER_MOD_FAILED, BAD_FLAGS);
            }
            if ((flags & LATENCY) != 0 && rate >= MAX_RATE_KBPS) {
                throw new PofCodecException("METER_MOD: a latency meter needs a cap below 100 Gbit/s",
                        METER_MOD_FAILED, BAD_RATE);
            }
        }
    }

    /** COUNTER_MOD / COUNTER_REQUEST / COUNTER_REPLY (24): command u8, slot_id u16@2, id u32@4, packets, bytes. */
    public static class Counter extends PofBody {
        public static final int ADD = 0;
        public static final int DELETE = 1;
        public static final int CLEAR = 2;
        public int command;
        public int slotId;
        public long counterId;
        public long packets;
        public long bytes;

        public Counter() {
        }

        public Counter(int command, long counterId) {
            this.command = command;
            this.counterId = counterId;
        }

        @Override
        int wireSize() {
            return 24;
        }

        @Override
        void write(ByteBuffer b, int off) {
            Wire.putU8(b, off, command);
            Wire.putU16(b, off + 2, slotId);
            Wire.putU32(b, off + 4, counterId);
            b.putLong(off + 8, packets);
            b.putLong(off + 16, bytes);
        }

        static Counter read(ByteBuffer b, int off, int len) {
            need("COUNTER", len, 24);
            Counter c = new Counter(Wire.u8(b, off), Wire.u32(b, off + 4));
            c.slotId = Wire.u16(b, off + 2);
            c.packets = b.getLong(off + 8);
            c.bytes = b.getLong(off + 16);
            return c;
        }
    }

    /** A message type this codec carries without interpreting (EXPERIMENTER, FLOW_REMOVED, GROUP_MOD, ROLE). */
    public static class Raw extends PofBody {
        @JsonSerialize(using = Hex.Serializer.class)
        @JsonDeserialize(using = Hex.Deserializer.class)
        public byte[] raw = new byte[0];

        @Override
        int wireSize() {
            return raw.length;
        }

        @Override
        void write(ByteBuffer b, int off) {
            Wire.putBytes(b, off, raw, raw.length, "raw body");
        }

        static Raw read(ByteBuffer b, int off, int len) {
            Raw r = new Raw();
            r.raw = Wire.bytes(b, off, len);
            return r;
        }
    }
}
