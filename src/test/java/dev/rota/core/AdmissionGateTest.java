package dev.rota.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class AdmissionGateTest {

    @Test
    void openGateCountsProducers() {
        AdmissionGate gate = new AdmissionGate();
        assertTrue(gate.enter());
        assertTrue(gate.enter());
        assertEquals(2, gate.producers());
        gate.exit();
        assertEquals(1, gate.producers());
        assertFalse(gate.isDrained(), "open gates are never drained");
    }

    @Test
    void closedGateRefusesAndDrainsWhenTheLastProducerLeaves() {
        AdmissionGate gate = new AdmissionGate();
        assertTrue(gate.enter());
        gate.close();
        assertTrue(gate.isClosed());
        assertFalse(gate.enter(), "entry after close");
        assertFalse(gate.isDrained(), "a producer is still inside");
        gate.exit();
        assertTrue(gate.isDrained());
        gate.close();
        assertTrue(gate.isDrained(), "close is idempotent");
    }

    @Test
    void closedBitIsTheSignBit() {
        assertEquals(Integer.MIN_VALUE, AdmissionGate.CLOSED, "producer count uses the other 31 bits");
    }
}
