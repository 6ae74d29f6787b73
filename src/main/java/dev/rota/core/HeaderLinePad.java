package dev.rota.core;

/**
 * 64 bytes of padding right after the object header, for the classes whose first fields are read on
 * every submission. An object shares its first cache line with the end of whatever object lies
 * before it in memory, which the collector chooses anew each time it moves them; without this
 * padding a field that another thread writes at the end of that object would take the line from
 * the submitters now and then, and a run would be fast or slow by where its objects landed. Fields
 * of a subclass start 64 bytes after the header (at offset 76 with HotSpot's default 12-byte header,
 * 72 with compact headers), past any line the object before can reach (that reach ends before
 * offset 56, objects being 8-byte aligned).
 *
 * <p>The padding is made of bytes because HotSpot places a class's fields in the holes its
 * superclasses left before it appends them, largest first: longs here would leave the header's
 * hole of 4 bytes for the subclass's first int or reference. Bytes fill from the first free offset
 * and leave no hole. JCTools pads its queues the same way. {@code FieldLayoutTest} checks the
 * offsets.
 */
abstract class HeaderLinePad {
    @SuppressWarnings("unused")
    private byte b00, b01, b02, b03, b04, b05, b06, b07, b08, b09, b10, b11, b12, b13, b14, b15,
            b16, b17, b18, b19, b20, b21, b22, b23, b24, b25, b26, b27, b28, b29, b30, b31,
            b32, b33, b34, b35, b36, b37, b38, b39, b40, b41, b42, b43, b44, b45, b46, b47,
            b48, b49, b50, b51, b52, b53, b54, b55, b56, b57, b58, b59, b60, b61, b62, b63;
}
