package org.wislice.onos.pof.wire;

import java.nio.ByteBuffer;

/** PORT_STATUS / PORT_MOD (128): reason u8, pad7, port (120)@8. */
public class PortStatus extends PofBody {
    public static final int SIZE = 128;
    public static final int ADD = 0;
    public static final int DELETE = 1;
    public static final int MODIFY = 2;

    public int reason;
    public PofPort port = new PofPort();

    public PortStatus() {
    }

    public PortStatus(int reason, PofPort port) {
        this.reason = reason;
        this.port = port;
    }

    @Override
    int wireSize() {
        return SIZE;
    }

    @Override
    void write(ByteBuffer b, int off) {
        Wire.putU8(b, off, reason);
        port.write(b, off + 8);
    }

    static PortStatus read(ByteBuffer b, int off, int len) {
        need("PORT_STATUS", len, SIZE);
        return new PortStatus(Wire.u8(b, off), PofPort.read(b, off + 8));
    }
}
