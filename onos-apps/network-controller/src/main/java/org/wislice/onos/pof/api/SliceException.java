package org.wislice.onos.pof.api;

/**
 * A slice request that cannot be done, with the error code of the controller REST contract
 * (bad_request, not_found, conflict, capacity, internal, timeout) and its HTTP status.
 */
public class SliceException extends RuntimeException {
    private final String code;
    private final int status;

    public SliceException(String code, int status, String message) {
        super(message);
        this.code = code;
        this.status = status;
    }

    public static SliceException badRequest(String message) {
        return new SliceException("bad_request", 400, message);
    }

    public static SliceException notFound(String message) {
        return new SliceException("not_found", 404, message);
    }

    public static SliceException conflict(String message) {
        return new SliceException("conflict", 409, message);
    }

    public String code() {
        return code;
    }

    public int status() {
        return status;
    }
}
