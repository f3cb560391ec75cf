package org.wislice.onos.pof.wire;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;

/**
 * POF message types: wire code, spec name, and the body codec. BARRIER is listed but has no body codec: the
 * reference switch answers it with ERROR BAD_TYPE, and so does this codec.
 */
public enum PofType {
    HELLO(0, PofBody.Empty.class),
    ERROR(1, PofBody.Error.class),
    ECHO_REQUEST(2, PofBody.Echo.class),
    ECHO_REPLY(3, PofBody.Echo.class),
    EXPERIMENTER(4, PofBody.Raw.class),
    FEATURES_REQUEST(5, PofBody.Empty.class),
    FEATURES_REPLY(6, FeaturesReply.class),
    GET_CONFIG_REQUEST(7, PofBody.Empty.class),
    GET_CONFIG_REPLY(8, PofBody.SwitchConfig.class),
    SET_CONFIG(9, PofBody.SwitchConfig.class),
    PACKET_IN(10, PacketIn.class),
    FLOW_REMOVED(11, PofBody.Raw.class),
    PORT_STATUS(12, PortStatus.class),
    RESOURCE_REPORT(13, ResourceReport.class),
    PACKET_OUT(14, PacketOut.class),
    FLOW_MOD(15, FlowMod.class),
    GROUP_MOD(16, PofBody.Raw.class),
    PORT_MOD(17, PortStatus.class),
    TABLE_MOD(18, TableMod.class),
    MULTIPART_REQUEST(19, MultipartRequest.class),
    MULTIPART_REPLY(20, MultipartReply.class),
    BARRIER_REQUEST(21, null),
    BARRIER_REPLY(22, null),
    ROLE_REQUEST(25, PofBody.Raw.class),
    ROLE_REPLY(26, PofBody.Raw.class),
    METER_MOD(30, PofBody.MeterMod.class),
    COUNTER_MOD(31, PofBody.Counter.class),
    COUNTER_REQUEST(32, PofBody.Counter.class),
    COUNTER_REPLY(33, PofBody.Counter.class),
    QUERYALL_REQUEST(34, PofBody.QueryAll.class),
    QUERYALL_FIN(35, PofBody.Empty.class);

    private static final Map<Integer, PofType> BY_CODE = new HashMap<>();

    static {
        for (PofType t : values()) {
            BY_CODE.put(t.code, t);
        }
    }

    private final int code;
    private final Class<? extends PofBody> bodyClass;
    PofType(int code, Class<? extends PofBody> bodyClass) {
        this.code = code;
        this.bodyClass = bodyClass;
    }

    public int code() {
        return code;
    }

    /** The body class of this type, or null when the codec does not support the type. */
    public Class<? extends PofBody> bodyClass() {
        return bodyClass;
    }

    /** Decodes a body of this type, {@code len} bytes at {@code off}. */
    PofBody read(ByteBuffer b, int off, int len) {
        switch (this) {
            case ERROR:
                return PofBody.Error.read(b, off, len);
            case ECHO_REQUEST:
            case ECHO_REPLY:
                return PofBody.Echo.read(b, off, len);
            case FEATURES_REPLY:
                return FeaturesReply.read(b, off, len);
            case GET_CONFIG_REPLY:
            case SET_CONFIG:
                return PofBody.SwitchConfig.read(b, off, len);
            case PACKET_IN:
                return PacketIn.read(b, off, len);
            case PORT_STATUS:
            case PORT_MOD:
                return PortStatus.read(b, off, len);
            case RESOURCE_REPORT:
                return ResourceReport.read(b, off, len);
            case PACKET_OUT:
                return PacketOut.read(b, off, len);
            case FLOW_MOD:
                return FlowMod.read(b, off, len);
            case TABLE_MOD:
                return TableMod.read(b, off, len);
            case MULTIPART_REQUEST:
                return MultipartRequest.read(b, off, len);
            case MULTIPART_REPLY:
                return MultipartReply.read(b, off, len);
            case METER_MOD:
                return PofBody.MeterMod.read(b, off, len);
            case COUNTER_MOD:
            case COUNTER_REQUEST:
            case COUNTER_REPLY:
                return PofBody.Counter.read(b, off, len);
            case QUERYALL_REQUEST:
                return PofBody.QueryAll.read(b, off, len);
            default:
                if (bodyClass == PofBody.Empty.class) {
                    return new PofBody.Empty();
                }
                if (bodyClass == PofBody.Raw.class) {
                    return PofBody.Raw.read(b, off, len);
                }
                throw new PofCodecException("unsupported message type " + code, PofCodecException.BAD_REQUEST,
                        PofCodecException.BAD_TYPE);
        }
    }

    /** The type with this wire code, or null. */
    public static PofType of(int code) {
        return BY_CODE.get(code);
    }
}
