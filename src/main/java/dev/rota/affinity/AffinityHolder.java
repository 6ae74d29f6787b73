package dev.rota.affinity;

/** Lazily chooses the platform's {@link Affinity} once. SKELETON: Linux support to come. */
final class AffinityHolder {
    static final Affinity SYSTEM = new NoAffinity("pinning not implemented yet");

    private AffinityHolder() {}
}
