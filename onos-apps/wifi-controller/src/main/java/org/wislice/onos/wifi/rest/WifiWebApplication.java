package org.wislice.onos.wifi.rest;

import org.onlab.rest.AbstractWebApplication;
import org.wislice.onos.agent.ControllerExceptionMapper;

import java.util.Set;

/** The JAX-RS application of /onos/wifi. */
public class WifiWebApplication extends AbstractWebApplication {
    @Override
    public Set<Class<?>> getClasses() {
        return getClasses(WifiWebResource.class, ControllerExceptionMapper.class);
    }
}
