package org.wislice.onos.wifi.impl;

import org.onosproject.store.StoreDelegate;
import org.wislice.onos.wifi.api.WifiEvent;

/** Receives the store's events (map changes on any cluster node). */
public interface WifiStoreDelegate extends StoreDelegate<WifiEvent> {
}
