/** REST API of the NFV controller under /onos/nfv (spec/onos-rest/README.md). */
package org.wislice.onos.nfv.rest;
