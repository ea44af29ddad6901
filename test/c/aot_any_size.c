/* An ahead-of-time function compiled without estimates (test/python/test_aot_any_size.py), called at two sizes:
 * blur3 (a 3x3 blur with repeat_edge) at 31x7 and 640x480, each output written to DIR/out<k>.bin; then halo
 * (g(x, y) = input(x - 1, y) + input(x + 1, y + 2)) with an input too small for its stencil, which must return
 * access_out_of_bounds through the error handler. Prints "too_small <code> <handler calls> <message>" last. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blur3.h"
#include "halo.h"

static int calls;
static char last[1024];

static void handler(void *user_context, const char *msg) {
    (void)user_context;
    calls++;
    snprintf(last, sizeof last, "%s", msg);
}

static halide_buffer_t buffer(void *host, int w, int h, halide_dimension_t *dim) {
    halide_buffer_t b;
    memset(&b, 0, sizeof b);
    b.host = (uint8_t *)host;
    b.type.code = halide_type_uint;
    b.type.bits = 16;
    b.type.lanes = 1;
    b.dimensions = 2;
    dim[0].min = 0, dim[0].extent = w, dim[0].stride = 1, dim[0].flags = 0;
    dim[1].min = 0, dim[1].extent = h, dim[1].stride = w, dim[1].flags = 0;
    b.dim = dim;
    return b;
}

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    halide_set_error_handler(handler);
    static const int sizes[2][2] = {{31, 7}, {640, 480}};
    for (int k = 0; k < 2; k++) {
        int w = sizes[k][0], h = sizes[k][1];
        uint16_t *in = malloc(sizeof(uint16_t) * w * h), *out = malloc(sizeof(uint16_t) * w * h);
        for (int i = 0; i < w * h; i++) in[i] = (uint16_t)(((long)i * 7919) % 65521);
        halide_dimension_t di[2], dout[2];
        halide_buffer_t bi = buffer(in, w, h, di), bo = buffer(out, w, h, dout);
        int r = blur3(&bi, &bo);
        if (r != 0) {
            printf("blur3 %dx%d returned %d: %s\n", w, h, r, last);
            return 1;
        }
        char path[4096];
        snprintf(path, sizeof path, "%s/out%d.bin", argv[1], k);
        FILE *f = fopen(path, "wb");
        fwrite(out, sizeof(uint16_t), (size_t)w * h, f);
        fclose(f);
        free(in);
        free(out);
    }
    static uint16_t in[10 * 12], out[10 * 10];
    halide_dimension_t di[2], dout[2];
    halide_buffer_t bi = buffer(in, 11, 10, di), bo = buffer(out, 10, 10, dout);  /* needs 12 x 12 at (-1, 0) */
    di[0].min = -1;
    int r = halo(&bi, &bo);
    printf("too_small %d %d %s\n", r, calls, last);
    return 0;
}
