package org.wislice.onos.nfv.rest;

import org.onlab.rest.AbstractWebApplication;
import org.wislice.onos.agent.ControllerExceptionMapper;

import java.util.Set;

/** The JAX-RS application of /onos/nfv. */
public class NfvWebApplication extends AbstractWebApplication {
    @Override
    public Set<Class<?>> getClasses() {
        return getClasses(NfvWebResource.class, ControllerExceptionMapper.class);
    }
}
