package org.wislice.onos.pof.rest;

import org.onlab.rest.AbstractWebApplication;

import java.util.Set;

/** REST application of the network controller, served under /onos/pof. */
public class PofWebApplication extends AbstractWebApplication {
    @Override
    public Set<Class<?>> getClasses() {
        return getClasses(PofWebResource.class);
    }
}
