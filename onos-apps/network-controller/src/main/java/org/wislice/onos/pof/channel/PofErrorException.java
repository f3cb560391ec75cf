package org.wislice.onos.pof.channel;

import org.wislice.onos.pof.wire.PofBody;

/** The switch answered a request with ERROR: how a request future of {@link PofSession} fails in that case. */
public class PofErrorException extends Exception {
    private final transient PofBody.Error error;

    public PofErrorException(PofBody.Error error) {
        super(error.toString());
        this.error = error;
    }

    public PofBody.Error error() {
        return error;
    }

    /** ERROR type (e.g. BAD_REQUEST 1). */
    public int type() {
        return error.type;
    }

    /** ERROR code within its type (e.g. BAD_TYPE 1). */
    public int code() {
        return error.code;
    }
}
