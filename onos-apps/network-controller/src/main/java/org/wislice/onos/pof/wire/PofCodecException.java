package org.wislice.onos.pof.wire;

/**
 * A message that cannot be encoded or decoded. Carries the POF ERROR type/code the receiver answers with
 * (OFPET_BAD_REQUEST = 1; BAD_VERSION 0, BAD_TYPE 1, BAD_MULTIPART 2, BAD_LEN 6, BAD_PORT 11), so a session can
 * reply before closing.
 */
public class PofCodecException extends RuntimeException {

    public static final int BAD_REQUEST = 1;
    public static final int BAD_VERSION = 0;
    public static final int BAD_TYPE = 1;
    public static final int BAD_MULTIPART = 2;
    public static final int BAD_LEN = 6;
    public static final int BAD_PORT = 11;

    private final int errorType;
    private final int errorCode;

    public PofCodecException(String message) {
        this(message, BAD_REQUEST, BAD_LEN);
    }

    public PofCodecException(String message, int errorType, int errorCode) {
        super(message);
        this.errorType = errorType;
        this.errorCode = errorCode;
    }

    public int errorType() {
        return errorType;
    }

    public int errorCode() {
        return errorCode;
    }
}
