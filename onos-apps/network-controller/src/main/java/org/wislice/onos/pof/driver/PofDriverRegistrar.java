package org.wislice.onos.pof.driver;

import org.onosproject.net.behaviour.ExtensionSelectorResolver;
import org.onosproject.net.behaviour.ExtensionTreatmentResolver;
import org.onosproject.net.driver.Behaviour;
import org.onosproject.net.driver.DefaultDriver;
import org.onosproject.net.driver.DefaultDriverProvider;
import org.onosproject.net.driver.DriverAdminService;
import org.onosproject.net.flow.ExtensionSelectorCodec;
import org.onosproject.net.flow.ExtensionTreatmentCodec;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;

import java.util.List;
import java.util.Map;

/**
 * Registers the "wislice-pof" driver: the behaviours that resolve and show the POF extension selectors and
 * treatments. Devices of the POF provider name it in their "driver" annotation.
 */
@Component(immediate = true)
public class PofDriverRegistrar {
    public static final String DRIVER_NAME = "wislice-pof";

    @Reference(cardinality = ReferenceCardinality.MANDATORY)
    protected DriverAdminService driverAdminService;

    private final DefaultDriverProvider provider = new DefaultDriverProvider();

    @Activate
    protected void activate() {
        Map<Class<? extends Behaviour>, Class<? extends Behaviour>> behaviours = Map.of(
                ExtensionSelectorResolver.class, PofExtensionResolver.class,
                ExtensionTreatmentResolver.class, PofExtensionResolver.class,
                ExtensionSelectorCodec.class, PofSelectorCodec.class,
                ExtensionTreatmentCodec.class, PofTreatmentCodec.class);
        provider.addDriver(new DefaultDriver(DRIVER_NAME, List.of(), "WiSlice", "POF", "*", behaviours, Map.of()));
        driverAdminService.registerProvider(provider);
    }

    @Deactivate
    protected void deactivate() {
        driverAdminService.unregisterProvider(provider);
    }
}
