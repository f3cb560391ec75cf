package org.wislice.onos.nfv.impl;

import org.onosproject.store.StoreDelegate;
import org.wislice.onos.nfv.api.NfvEvent;

/** Receives the store's events (map changes on any cluster node). */
public interface NfvStoreDelegate extends StoreDelegate<NfvEvent> {
}
