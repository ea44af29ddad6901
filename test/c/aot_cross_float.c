/* A cross-compiled float pipeline with a float Param (test/python/test_aot_cross.py, under qemu-user): the
 * wrapper (zig's clang) and the kernel (llc) must agree on the target's float calling convention (hard-float
 * gnueabihf, soft-float EABI for arm-32-android). Built with -include <header>; the function is ff. */
#include <math.h>
#include <stdio.h>
#include <string.h>

int main(void) {
    static float in[8][40], out[8][40];
    for (int y = 0; y < 8; y++)
        for (int x = 0; x < 40; x++) in[y][x] = (float)(x + y * 3);
    halide_dimension_t d[2] = {{0, 40, 1, 0}, {0, 8, 40, 0}};
    halide_buffer_t a, b;
    memset(&a, 0, sizeof a);
    a.host = (uint8_t *)in;
    a.type.code = halide_type_float;
    a.type.bits = 32;
    a.type.lanes = 1;
    a.dimensions = 2;
    a.dim = d;
    b = a;
    b.host = (uint8_t *)out;
    int r = ff(&a, 1.5f, &b);
    double err = 0;
    for (int y = 0; y < 8; y++)
        for (int x = 0; x < 40; x++) err += fabs(out[y][x] - (sqrtf(in[y][x]) * 1.5f + (float)x));
    printf(r == 0 && err < 1e-3 ? "ok\n" : "r=%d err=%g\n", r, err);
    return r != 0 || err >= 1e-3;
}
