package dev.rota;

import java.util.List;
import java.util.Objects;

/** Immutable copies of the lists the public API takes, refusing nulls with a message that names them. */
final class NonNullLists {
    private NonNullLists() {}

    /**
     * An immutable copy of {@code list}.
     *
     * @throws NullPointerException naming {@code name} if the list is null, or {@code name[i]} for a
     *         null element at index i ({@code List.copyOf} would say neither)
     */
    static <E> List<E> copyOf(List<E> list, String name) {
        Objects.requireNonNull(list, name);
        int i = 0;
        for (E element : list) {
            if (element == null) {
                throw new NullPointerException(name + "[" + i + "]");
            }
            i++;
        }
        return List.copyOf(list);
    }
}
