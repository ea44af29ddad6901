/* Runs a pipeline cross-compiled by test/python/test_aot_cross.py for another machine (under qemu-user): the
 * lesson 11 `brighter` (input + offset, vectorized by 16, parallel over y) on a 64x32 image, and a float blur
 * whose parallel loop runs on the runtime's thread pool. Prints "ok" when every value is the expected one. Built
 * with -DFN=<the function's name> and -include <its header>. */
#include <stdio.h>
#include <string.h>

#define W 64
#define H 32

static halide_buffer_t buffer(void *host, uint8_t code, uint8_t bits, halide_dimension_t *dim) {
    halide_buffer_t b;
    memset(&b, 0, sizeof b);
    b.host = (uint8_t *)host;
    b.type.code = code;
    b.type.bits = bits;
    b.type.lanes = 1;
    b.dimensions = 2;
    b.dim = dim;
    return b;
}

int main(void) {
    static uint8_t in[H][W], out[H][W];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) in[y][x] = (uint8_t)(x * 7 + y * 13);
    halide_dimension_t d_in[2] = {{0, W, 1, 0}, {0, H, W, 0}}, d_out[2] = {{0, W, 1, 0}, {0, H, W, 0}};
    halide_buffer_t b_in = buffer(in, halide_type_uint, 8, d_in), b_out = buffer(out, halide_type_uint, 8, d_out);
    halide_set_num_threads(3);
    int r = FN(&b_in, 9, &b_out);
    if (r != 0) {
        printf("error %d\n", r);
        return 1;
    }
    int bad = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) bad += out[y][x] != (uint8_t)(in[y][x] + 9);
    /* a crop (strides not dense over the region) goes through the runtime's copy */
    static uint8_t wide[H][W + 8];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) wide[y][x] = in[y][x];
    halide_dimension_t d_wide[2] = {{0, W + 8, 1, 0}, {0, H, W + 8, 0}};
    halide_buffer_t b_wide = buffer(wide, halide_type_uint, 8, d_wide);
    memset(out, 0, sizeof out);
    r = FN(&b_wide, 200, &b_out);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) bad += out[y][x] != (uint8_t)(in[y][x] + 200);
    halide_shutdown_thread_pool();
    printf(bad == 0 && r == 0 ? "ok\n" : "%d wrong values (r=%d)\n", bad, r);
    return bad != 0;
}
