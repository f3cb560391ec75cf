package org.wislice.onos.pof.wire;

/** One POF message: header fields and a decoded body whose class matches the type (see {@link PofType}). */
public final class PofMessage {
    public static final int VERSION = 4;

    private final int version;
    private final PofType type;
    private final long xid;
    private final PofBody body;

    public PofMessage(PofType type, long xid, PofBody body) {
        this(VERSION, type, xid, body);
    }

    public PofMessage(int version, PofType type, long xid, PofBody body) {
        if (type.bodyClass() == null) {
            throw new PofCodecException("unsupported message type " + type, PofCodecException.BAD_REQUEST,
                    PofCodecException.BAD_TYPE);
        }
        if (!type.bodyClass().isInstance(body)) {
            throw new IllegalArgumentException(type + " needs a " + type.bodyClass().getSimpleName() + " body");
        }
        this.version = version;
        this.type = type;
        this.xid = xid;
        this.body = body;
    }

    public int version() {
        return version;
    }

    public PofType type() {
        return type;
    }

    public long xid() {
        return xid;
    }

    public PofBody body() {
        return body;
    }

    /** The body as its concrete class, e.g. {@code msg.body(FeaturesReply.class)}. */
    public <T extends PofBody> T body(Class<T> cls) {
        return cls.cast(body);
    }

    @Override
    public String toString() {
        return type + "(xid=" + xid + ")";
    }
}
