package dev.rota.core;

/**
 * 64 bytes of padding between a {@link Group}'s routing fields, read on every submission, and its
 * activation state, written whenever the group runs dry or gets work again. Bytes, because HotSpot
 * fills the holes the routing fields leave (after the run state's int and the boolean next to it)
 * with a subclass's smaller fields: behind padding of longs, the activation state's int and boolean
 * landed in those holes, on the routing fields' line. See {@link HeaderLinePad}.
 */
abstract class GroupRoutingLinePad extends GroupRoutingFields {
    @SuppressWarnings("unused")
    private byte b00, b01, b02, b03, b04, b05, b06, b07, b08, b09, b10, b11, b12, b13, b14, b15,
            b16, b17, b18, b19, b20, b21, b22, b23, b24, b25, b26, b27, b28, b29, b30, b31,
            b32, b33, b34, b35, b36, b37, b38, b39, b40, b41, b42, b43, b44, b45, b46, b47,
            b48, b49, b50, b51, b52, b53, b54, b55, b56, b57, b58, b59, b60, b61, b62, b63;

    GroupRoutingLinePad(Engine engine, int capacity) {
        super(engine, capacity);
    }
}
