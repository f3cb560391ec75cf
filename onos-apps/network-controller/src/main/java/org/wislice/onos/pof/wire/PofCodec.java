package org.wislice.onos.pof.wire;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;

/**
 * Encodes and decodes whole POF messages: 8-byte header (version 4, type, length incl. header, xid) + body.
 * Decoding validates version, type, declared length and body size; failures carry the ERROR type/code to send.
 */
public final class PofCodec {
    public static final int HEADER = 8;
    public static final int MAX_LENGTH = 0xffff;

    private PofCodec() {
    }

    public static byte[] encode(PofMessage msg) {
        int size = HEADER + msg.body().wireSize();
        if (size > MAX_LENGTH) {
            throw new PofCodecException(msg.type() + " of " + size + " bytes does not fit the 16-bit length");
        }
        ByteBuffer b = ByteBuffer.allocate(size);
        Wire.putU8(b, 0, msg.version());
        Wire.putU8(b, 1, msg.type().code());
        Wire.putU16(b, 2, size);
        Wire.putU32(b, 4, msg.xid());
        msg.body().write(b, HEADER);
        return b.array();
    }

    public static PofMessage decode(byte[] raw) {
        if (raw.length < HEADER) {
            throw new PofCodecException("shorter than the 8-byte header");
        }
        ByteBuffer b = ByteBuffer.wrap(raw);
        int version = Wire.u8(b, 0);
        if (version != PofMessage.VERSION) {
            throw new PofCodecException("version " + version + ", expected 4", PofCodecException.BAD_REQUEST,
                    PofCodecException.BAD_VERSION);
        }
        int code = Wire.u8(b, 1);
        PofType type = PofType.of(code);
        if (type == null || type.bodyClass() == null) {
            throw new PofCodecException("unsupported message type " + code, PofCodecException.BAD_REQUEST,
                    PofCodecException.BAD_TYPE);
        }
        int length = Wire.u16(b, 2);
        if (length != raw.length) {
            throw new PofCodecException("header length " + length + " but " + raw.length + " bytes");
        }
        PofBody body = type.read(b, HEADER, length - HEADER);
        return new PofMessage(version, type, Wire.u32(b, 4), body);
    }

    /**
     * Reads one framed message from a stream (by the header's length) without decoding the body, so a session
     * can answer a malformed message with ERROR using its xid. Returns null on a clean end of stream.
     */
    public static byte[] readFrame(InputStream in) throws IOException {
        DataInputStream din = new DataInputStream(in);
        byte[] head = new byte[HEADER];
        int first = din.read();
        if (first < 0) {
            return null;
        }
        head[0] = (byte) first;
        try {
            din.readFully(head, 1, HEADER - 1);
        } catch (EOFException e) {
            throw new IOException("connection closed inside a message header", e);
        }
        int length = ((head[2] & 0xff) << 8) | (head[3] & 0xff);
        if (length < HEADER) {
            throw new PofCodecException("bad length " + length + " in stream");
        }
        byte[] frame = new byte[length];
        System.arraycopy(head, 0, frame, 0, HEADER);
        din.readFully(frame, HEADER, length - HEADER);
        return frame;
    }

    /** The xid of a framed message (valid as soon as the header is there), for error replies. */
    public static long xidOf(byte[] frame) {
        return frame.length < HEADER ? 0 : ByteBuffer.wrap(frame).getInt(4) & 0xffffffffL;
    }
}
