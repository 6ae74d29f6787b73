/**
 * Rota: a pinned, ticket-fair {@link java.util.concurrent.ExecutorService}.
 * Only {@code dev.rota} is exported; everything else is implementation.
 */
module dev.rota {
    requires org.jctools.core;
    exports dev.rota;
}
