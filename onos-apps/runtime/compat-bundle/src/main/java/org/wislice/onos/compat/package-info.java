/**
 * Services a bootable ONOS 2.5.6 core needs but Maven Central does not publish (see docs/runtime-facts.md).
 * Single-node, in-memory: for the WiSlice development, test and demo runtime only.
 */
package org.wislice.onos.compat;
