package org.wislice.onos.agent;

import static org.junit.Assert.fail;

/** assertThrows for JUnit 4.12 (ONOS's version), for ProtocolException. */
final class Expect {

    interface Body {
        void run() throws Exception;
    }

    private Expect() {
    }

    static ProtocolException protocolError(Body body) {
        try {
            body.run();
        } catch (ProtocolException e) {
            return e;
        } catch (Exception e) {
            fail("expected ProtocolException, got " + e);
        }
        fail("expected ProtocolException");
        return null;
    }
}
