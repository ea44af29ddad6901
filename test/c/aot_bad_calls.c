/* Bad calls of an ahead-of-time compiled pipeline (brighten: uint8 input, Param offset, 64x48 uint8 output; see
 * test/python/test_aot.py): each must return Halide's error code and report through the error handler set with
 * halide_set_error_handler, never crash. Prints one line per call: "<case> <code> <handler calls> <message>". */
#include <stdio.h>
#include <string.h>

#include "brighten.h"

#define W 64
#define H 48

static int calls;
static char last[1024];

static void handler(void *user_context, const char *msg) {
    (void)user_context;
    calls++;
    snprintf(last, sizeof last, "%s", msg);
}

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

static void report(const char *what, int code) {
    printf("%s %d %d %s\n", what, code, calls, code ? last : "");
    calls = 0;
    last[0] = 0;
}

int main(void) {
    halide_set_error_handler(handler);
    static uint8_t in[H + 1][W + 1], out[H][W];
    static float inf[H][W];
    halide_dimension_t d_in[3] = {{0, W, 1, 0}, {0, H, W, 0}, {0, 1, W * H, 0}}, d_out[2] = {{0, W, 1, 0},
                                                                                              {0, H, W, 0}};
    halide_buffer_t b_out = buffer(out, halide_type_uint, 8, 2, d_out);

    halide_buffer_t b3 = buffer(in, halide_type_uint, 8, 3, d_in);
    report("wrong_dims", brighten(&b3, 1, &b_out));

    halide_dimension_t d_small[2] = {{0, W - 1, 1, 0}, {0, H, W - 1, 0}};
    halide_buffer_t small = buffer(in, halide_type_uint, 8, 2, d_small);
    report("too_small", brighten(&small, 1, &b_out));

    halide_dimension_t d_shifted[2] = {{1, W, 1, 0}, {0, H, W, 0}};
    halide_buffer_t shifted = buffer(in, halide_type_uint, 8, 2, d_shifted);
    report("shifted", brighten(&shifted, 1, &b_out));

    halide_dimension_t d_f[2] = {{0, W, 1, 0}, {0, H, W, 0}};
    halide_buffer_t wrong_type = buffer(inf, halide_type_float, 32, 2, d_f);
    report("wrong_type", brighten(&wrong_type, 1, &b_out));

    halide_dimension_t d_ok[2] = {{0, W, 1, 0}, {0, H, W, 0}};
    halide_buffer_t ok = buffer(in, halide_type_uint, 8, 2, d_ok);
    report("null_buffer", brighten(NULL, 1, &b_out));

    halide_dimension_t d_bigout[2] = {{0, W + 1, 1, 0}, {0, H, W + 1, 0}};
    halide_buffer_t bigout = buffer(in, halide_type_uint, 8, 2, d_bigout);
    report("output_region", brighten(&ok, 1, &bigout));

    halide_buffer_t wrong_out_type = buffer(inf, halide_type_int, 8, 2, d_out);
    report("output_type", brighten(&ok, 1, &wrong_out_type));

    /* a bounds query: a null host gets the region the function needs, and nothing runs */
    halide_dimension_t d_q[2] = {{0, 0, 0, 0}, {0, 0, 0, 0}};
    halide_buffer_t query = buffer(NULL, halide_type_uint, 8, 2, d_q);
    int code = brighten(&query, 1, &b_out);
    printf("bounds_query %d %d %d %d %d %d %d\n", code, calls, d_q[0].min, d_q[0].extent, d_q[1].min, d_q[1].extent,
           d_q[1].stride);

    report("good", brighten(&ok, 1, &b_out));
    return 0;
}
