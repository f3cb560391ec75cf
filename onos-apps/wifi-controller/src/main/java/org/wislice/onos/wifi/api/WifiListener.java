package org.wislice.onos.wifi.api;

import org.onosproject.event.EventListener;

/** Listens to WiFi controller events. */
public interface WifiListener extends EventListener<WifiEvent> {
}
