package org.wislice.onos.nfv.api;

import org.onosproject.event.EventListener;

/** Listens to NFV controller events. */
public interface NfvListener extends EventListener<NfvEvent> {
}
