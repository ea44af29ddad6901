/* Calls three pipelines compiled ahead of time by test/python/test_aot.py (brighten with a Param, a blur with a
 * boundary condition, a Tuple-valued Func with two outputs), linked as Halide's callers link:
 *     cc aot_pipelines.c brighten.a blur.a two_outputs.a -lpthread -ldl -lm
 * Inputs are filled with a formula the test repeats in numpy; outputs are written to OUTDIR/<name>.bin. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "brighten.h"
#include "blur.h"
#include "two_outputs.h"

#define W 64
#define H 48

static halide_buffer_t buffer(void *host, uint8_t code, uint8_t bits, int dims, halide_dimension_t *dim) {
    halide_buffer_t b;
    memset(&b, 0, sizeof b);
    b.host = (uint8_t *)host;
    b.type.code = code;
    b.type.bits = bits;
    b.type.lanes = 1;
    b.dimensions = dims;
    b.dim = dim;
    return b;
}

static int save(const char *dir, const char *name, const void *data, size_t size) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.bin", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size) return 1;
    return fclose(f) != 0;
}

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    const char *dir = argv[1];
    static uint8_t in8[H][W], out8[H][W];
    static float inf[H][W], outf[H][W];
    static int32_t out_a[H][W];
    static float out_b[H][W];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            in8[y][x] = (uint8_t)(x * 7 + y * 13);
            inf[y][x] = (float)((x * 3 + y * 5) % 17) * 0.25f;
        }
    halide_dimension_t d_in[2] = {{0, W, 1, 0}, {0, H, W, 0}}, d_out[2] = {{0, W, 1, 0}, {0, H, W, 0}};
    halide_buffer_t b_in = buffer(in8, halide_type_uint, 8, 2, d_in);
    halide_buffer_t b_out = buffer(out8, halide_type_uint, 8, 2, d_out);
    int err = brighten(&b_in, 20, &b_out);
    if (err) return printf("brighten returned %d\n", err), 1;

    halide_dimension_t d_inf[2] = {{0, W, 1, 0}, {0, H, W, 0}}, d_outf[2] = {{0, W, 1, 0}, {0, H, W, 0}};
    halide_buffer_t b_inf = buffer(inf, halide_type_float, 32, 2, d_inf);
    halide_buffer_t b_outf = buffer(outf, halide_type_float, 32, 2, d_outf);
    err = blur(&b_inf, &b_outf);
    if (err) return printf("blur returned %d\n", err), 1;

    halide_dimension_t d_a[2] = {{0, W, 1, 0}, {0, H, W, 0}}, d_b[2] = {{0, W, 1, 0}, {0, H, W, 0}};
    halide_buffer_t b_a = buffer(out_a, halide_type_int, 32, 2, d_a);
    halide_buffer_t b_b = buffer(out_b, halide_type_float, 32, 2, d_b);
    err = two_outputs(&b_in, &b_inf, 3, &b_a, &b_b);
    if (err) return printf("two_outputs returned %d\n", err), 1;

    /* brighten again through a crop of a bigger buffer (strides not dense over the region: copied) */
    static uint8_t big[H + 4][W + 8];
    for (int y = 0; y < H + 4; y++)
        for (int x = 0; x < W + 8; x++) big[y][x] = (uint8_t)((x - 3) * 7 + (y - 2) * 13);
    static uint8_t out_crop[H][W];
    halide_dimension_t d_big[2] = {{-3, W + 8, 1, 0}, {-2, H + 4, W + 8, 0}}, d_oc[2] = {{0, W, 1, 0}, {0, H, W, 0}};
    halide_buffer_t b_big = buffer(big, halide_type_uint, 8, 2, d_big);
    halide_buffer_t b_oc = buffer(out_crop, halide_type_uint, 8, 2, d_oc);
    err = brighten(&b_big, 20, &b_oc);
    if (err) return printf("brighten of a crop returned %d\n", err), 1;

    /* the same function through its _argv form */
    static uint8_t out_argv[H][W];
    halide_dimension_t d_oa[2] = {{0, W, 1, 0}, {0, H, W, 0}};
    halide_buffer_t b_oa = buffer(out_argv, halide_type_uint, 8, 2, d_oa);
    uint8_t offset = 20;
    void *args[3] = {&b_in, &offset, &b_oa};
    err = brighten_argv(args);
    if (err) return printf("brighten_argv returned %d\n", err), 1;

    halide_set_num_threads(3);   /* the parallel blur on another pool size */
    static float outf3[H][W];
    halide_dimension_t d_outf3[2] = {{0, W, 1, 0}, {0, H, W, 0}};
    halide_buffer_t b_outf3 = buffer(outf3, halide_type_float, 32, 2, d_outf3);
    err = blur(&b_inf, &b_outf3);
    if (err) return printf("blur on 3 threads returned %d\n", err), 1;
    halide_shutdown_thread_pool();

    if (save(dir, "brighten", out8, sizeof out8) || save(dir, "blur", outf, sizeof outf) ||
        save(dir, "two_a", out_a, sizeof out_a) || save(dir, "two_b", out_b, sizeof out_b) ||
        save(dir, "brighten_crop", out_crop, sizeof out_crop) || save(dir, "brighten_argv", out_argv, sizeof out_argv)
        || save(dir, "blur3", outf3, sizeof outf3))
        return printf("can't write the outputs\n"), 1;
    printf("ok\n");
    return 0;
}
