/**
 * Rota: a pinned, ticket-fair {@link java.util.concurrent.ExecutorService}.
 * Only {@code dev.rota} is exported; everything else is implementation.
 */
module dev.rota {
    requires org.jctools.core;
    requires java.management;                            // a spare's tasks are charged its thread's CPU time
    exports dev.rota;
}
