package org.wislice.onos.mobility.rest;

import org.onlab.rest.AbstractWebApplication;

import java.util.Set;

/** The JAX-RS application of /onos/mobility. */
public class MobilityWebApplication extends AbstractWebApplication {
    @Override
    public Set<Class<?>> getClasses() {
        return getClasses(MobilityWebResource.class);
    }
}
