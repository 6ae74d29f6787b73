package dev.rota.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The activation state of a {@link Group} (G2), on a cache line of its own: written whenever the
 * group runs dry or gets work again, read by every submission after its offer. The padding before
 * ({@link GroupRoutingLinePad}) keeps it off the routing fields, the longs here off the per-slice
 * figures after it.
 */
abstract class GroupActivationFields extends GroupRoutingLinePad {
    static final VarHandle ACTIVATION;

    static {
        try {
            ACTIVATION = MethodHandles.lookup().findVarHandle(GroupActivationFields.class, "activation", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused")
    private long p01, p02, p03, p04, p05, p06, p07, p08;
    /** Written when the group goes idle or active, not per task or per slice (see Dispatcher.reconcile). */
    volatile int activation = Group.IDLE;
    /** Under the dispatcher's lock, written only when it changes. */
    volatile boolean runnable;

    GroupActivationFields(Engine engine, int capacity) {
        super(engine, capacity);
    }
}
