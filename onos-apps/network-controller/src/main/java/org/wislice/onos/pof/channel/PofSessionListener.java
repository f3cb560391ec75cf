package org.wislice.onos.pof.channel;

import org.wislice.onos.pof.wire.PofMessage;
import org.wislice.onos.pof.wire.PortStatus;

/** What a switch session reports to the controller. Called on the session's reader thread: keep it short. */
public interface PofSessionListener {

    /** The handshake finished: features, resources and every port are known and the ports are enabled. */
    void switchReady(PofSession session);

    /** A port was added, changed or removed after the handshake. */
    void portChanged(PofSession session, PortStatus status);

    /** A message outside the handshake that no pending request claimed (ERROR, PACKET_IN...). */
    void message(PofSession session, PofMessage message);

    /** The connection ended (closed by either side, or a protocol error). */
    void switchGone(PofSession session);
}
