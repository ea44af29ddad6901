/* The runtime that ahead-of-time compiled halide_mlir pipelines call, compiled into every static library and
 * object (halide_mlir/aot/build.py), so a program links with Halide's line: cc main.c pipeline.a -lpthread -ldl -lm.
 *
 * - Halide's runtime entry points that AOT callers use: halide_error / halide_set_error_handler, halide_print,
 *   halide_malloc / halide_free and their custom hooks, halide_set_num_threads, halide_shutdown_thread_pool.
 * - The OpenMP entry points MLIR's omp dialect lowers parallel loops to (__kmpc_fork_call & co, static schedule
 *   only: what convert-scf-to-openmp emits), on a small pthread pool sized by halide_set_num_threads.
 * - memrefCopy, the one MLIR runner-utils function lowered code calls.
 *
 * Every symbol is weak, as in Halide's runtime: several pipelines' libraries link into one program, and a program
 * may define its own halide_error (or link the real libomp, whose __kmpc_* then win).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
/* Windows (cross-compiled, aot/cross.py): the few pthread calls of the pool on Win32 primitives, so the object
 * needs only the C runtime and kernel32, as with MSVC */
#include <malloc.h>
#include <windows.h>
typedef SRWLOCK pthread_mutex_t;
typedef CONDITION_VARIABLE pthread_cond_t;
typedef HANDLE pthread_t;
#define PTHREAD_MUTEX_INITIALIZER SRWLOCK_INIT
#define PTHREAD_COND_INITIALIZER CONDITION_VARIABLE_INIT
#define pthread_mutex_init(m, a) (InitializeSRWLock(m), 0)
#define pthread_mutex_destroy(m) ((void)(m), 0)
#define pthread_mutex_lock(m) AcquireSRWLockExclusive(m)
#define pthread_mutex_trylock(m) (TryAcquireSRWLockExclusive(m) ? 0 : 1)
#define pthread_mutex_unlock(m) ReleaseSRWLockExclusive(m)
#define pthread_cond_init(c, a) (InitializeConditionVariable(c), 0)
#define pthread_cond_destroy(c) ((void)(c), 0)
#define pthread_cond_wait(c, m) SleepConditionVariableSRW(c, m, INFINITE, 0)
#define pthread_cond_broadcast(c) WakeAllConditionVariable(c)
static void *hl_worker_main(void *arg);
static DWORD WINAPI hl_win_worker(LPVOID arg) { hl_worker_main(arg); return 0; }
/* (the pool's only thread function is hl_worker_main) */
#define pthread_create(t, attr, fn, arg) ((*(t) = CreateThread(NULL, 0, hl_win_worker, (arg), 0, NULL)) == NULL)
#define pthread_join(t, r) (WaitForSingleObject(t, INFINITE), CloseHandle(t))
static long hl_cpu_count(void) { SYSTEM_INFO si; GetSystemInfo(&si); return (long)si.dwNumberOfProcessors; }
#else
#include <pthread.h>
#include <unistd.h>
static long hl_cpu_count(void) { return sysconf(_SC_NPROCESSORS_ONLN); }
#endif

#define WEAK __attribute__((weak))

struct halide_buffer_t;
typedef void (*halide_error_handler_t)(void *, const char *);
typedef void (*halide_print_t)(void *, const char *);
typedef void *(*halide_malloc_t)(void *, size_t);
typedef void (*halide_free_t)(void *, void *);

/* --- printing and errors ------------------------------------------------------------------------------------ */

WEAK void halide_default_print(void *user_context, const char *msg) {
    (void)user_context;
    fputs(msg, stderr);
}

static halide_print_t hl_custom_print = halide_default_print;

WEAK halide_print_t halide_set_custom_print(halide_print_t print) {
    halide_print_t old = hl_custom_print;
    hl_custom_print = print;
    return old;
}

WEAK void halide_print(void *user_context, const char *msg) { hl_custom_print(user_context, msg); }

WEAK void halide_default_error(void *user_context, const char *msg) {
    char line[4096];
    size_t n = strlen(msg);
    snprintf(line, sizeof line, "Error: %s%s", msg, n && msg[n - 1] == '\n' ? "" : "\n");
    halide_print(user_context, line);
    abort();  /* as Halide's default handler */
}

static halide_error_handler_t hl_error_handler = halide_default_error;

WEAK halide_error_handler_t halide_set_error_handler(halide_error_handler_t handler) {
    halide_error_handler_t old = hl_error_handler;
    hl_error_handler = handler;
    return old;
}

WEAK void halide_error(void *user_context, const char *msg) { hl_error_handler(user_context, msg); }

/* Formats a message, reports it through halide_error and returns the error code (the generated wrappers'
 * "return __hl_aot_fail(code, ...)"). */
WEAK int __hl_aot_fail(int code, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    halide_error(NULL, msg);
    return code;
}

/* --- memory ---------------------------------------------------------------------------------------------------- */

WEAK void *halide_default_malloc(void *user_context, size_t x) {
    (void)user_context;
    /* Halide aligns host allocations to 128 bytes */
#ifdef _WIN32
    return _aligned_malloc(x ? x : 1, 128);
#else
    void *p = NULL;
    return posix_memalign(&p, 128, x ? x : 1) == 0 ? p : NULL;
#endif
}

WEAK void halide_default_free(void *user_context, void *ptr) {
    (void)user_context;
#ifdef _WIN32
    _aligned_free(ptr);
#else
    free(ptr);
#endif
}

static halide_malloc_t hl_custom_malloc = halide_default_malloc;
static halide_free_t hl_custom_free = halide_default_free;

WEAK halide_malloc_t halide_set_custom_malloc(halide_malloc_t f) {
    halide_malloc_t old = hl_custom_malloc;
    hl_custom_malloc = f;
    return old;
}

WEAK halide_free_t halide_set_custom_free(halide_free_t f) {
    halide_free_t old = hl_custom_free;
    hl_custom_free = f;
    return old;
}

WEAK void *halide_malloc(void *user_context, size_t x) { return hl_custom_malloc(user_context, x); }
WEAK void halide_free(void *user_context, void *ptr) { hl_custom_free(user_context, ptr); }

/* --- memrefCopy (MLIR's CRunnerUtils), for copies between memrefs of non-identity layout ----------------------- */

typedef struct { int64_t rank; void *descriptor; } hl_unranked_memref;

WEAK void memrefCopy(int64_t elem_size, hl_unranked_memref *src, hl_unranked_memref *dst) {
    int64_t rank = src->rank;
    /* descriptor: allocated, aligned, offset, sizes[rank], strides[rank] */
    char *s_base = ((char **)src->descriptor)[1], *d_base = ((char **)dst->descriptor)[1];
    int64_t *s = (int64_t *)((char **)src->descriptor + 2), *d = (int64_t *)((char **)dst->descriptor + 2);
    int64_t *sizes = s + 1, *s_strides = s + 1 + rank, *d_strides = d + 1 + rank;
    int64_t index[64] = {0};
    if (rank > 64) return;
    for (int64_t r = 0; r < rank; r++)
        if (sizes[r] == 0) return;
    for (;;) {
        int64_t so = s[0], dof = d[0];
        for (int64_t r = 0; r < rank; r++) {
            so += index[r] * s_strides[r];
            dof += index[r] * d_strides[r];
        }
        memcpy(d_base + dof * elem_size, s_base + so * elem_size, (size_t)elem_size);
        int64_t r = rank - 1;
        for (; r >= 0; r--) {
            if (++index[r] < sizes[r]) break;
            index[r] = 0;
        }
        if (r < 0) return;
    }
}

/* --- parallel loops: the OpenMP entry points of MLIR's omp dialect, on a pthread pool ------------------------ */

typedef void (*hl_microtask)(int32_t *, int32_t *, ...);

#define HL_MAX_THREADS 256
#define HL_MAX_ARGS 16

typedef struct {
    hl_microtask fn;
    int32_t argc;
    void *args[HL_MAX_ARGS];
    int32_t nth;                       /* the team: the caller (thread 0) and nth - 1 workers */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int32_t barrier_count, barrier_generation;
} hl_team;

static pthread_mutex_t hl_pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hl_pool_wake = PTHREAD_COND_INITIALIZER, hl_pool_done = PTHREAD_COND_INITIALIZER;
static pthread_t hl_workers[HL_MAX_THREADS];
static int hl_num_workers, hl_desired_threads, hl_shutting_down;
static int64_t hl_job_generation;      /* bumped per fork: a worker runs each job once */
static int hl_job_pending;             /* workers of the current job not finished yet */
static hl_team *hl_job;
static __thread int32_t hl_tid;        /* this thread's number in its team */
static __thread hl_team *hl_current_team;

static void hl_invoke(hl_team *t, int32_t tid) {
    int32_t gtid = tid, btid = tid;
    void **a = t->args;
    hl_team *outer = hl_current_team;
    int32_t outer_tid = hl_tid;
    hl_current_team = t;
    hl_tid = tid;
    switch (t->argc) {
#define A1 a[0]
    case 0: t->fn(&gtid, &btid); break;
    case 1: t->fn(&gtid, &btid, A1); break;
    case 2: t->fn(&gtid, &btid, A1, a[1]); break;
    case 3: t->fn(&gtid, &btid, A1, a[1], a[2]); break;
    case 4: t->fn(&gtid, &btid, A1, a[1], a[2], a[3]); break;
    case 5: t->fn(&gtid, &btid, A1, a[1], a[2], a[3], a[4]); break;
    case 6: t->fn(&gtid, &btid, A1, a[1], a[2], a[3], a[4], a[5]); break;
    case 7: t->fn(&gtid, &btid, A1, a[1], a[2], a[3], a[4], a[5], a[6]); break;
    case 8: t->fn(&gtid, &btid, A1, a[1], a[2], a[3], a[4], a[5], a[6], a[7]); break;
    default:
        t->fn(&gtid, &btid, A1, a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13],
              a[14], a[15]);
        break;
#undef A1
    }
    hl_current_team = outer;
    hl_tid = outer_tid;
}

static void *hl_worker_main(void *arg) {
    int32_t index = (int32_t)(intptr_t)arg;   /* worker k is team thread k + 1 */
    int64_t seen = 0;
    pthread_mutex_lock(&hl_pool_lock);
    for (;;) {
        while (!hl_shutting_down && (hl_job == NULL || hl_job_generation == seen))
            pthread_cond_wait(&hl_pool_wake, &hl_pool_lock);
        if (hl_shutting_down) break;
        seen = hl_job_generation;
        hl_team *t = hl_job;
        if (index + 1 < t->nth) {
            pthread_mutex_unlock(&hl_pool_lock);
            hl_invoke(t, index + 1);
            pthread_mutex_lock(&hl_pool_lock);
            if (--hl_job_pending == 0) pthread_cond_broadcast(&hl_pool_done);
        }
    }
    pthread_mutex_unlock(&hl_pool_lock);
    return NULL;
}

static int hl_default_threads(void) {
    const char *env = getenv("HL_NUM_THREADS");
    if (env && atoi(env) > 0) return atoi(env);
    long n = hl_cpu_count();
    return n > 0 ? (int)n : 1;
}

WEAK int halide_set_num_threads(int n) {
    pthread_mutex_lock(&hl_pool_lock);
    int old = hl_desired_threads ? hl_desired_threads : hl_default_threads();
    hl_desired_threads = n <= 0 ? hl_default_threads() : n > HL_MAX_THREADS ? HL_MAX_THREADS : n;
    pthread_mutex_unlock(&hl_pool_lock);
    return old;
}

WEAK void halide_shutdown_thread_pool(void) {
    pthread_mutex_lock(&hl_pool_lock);
    hl_shutting_down = 1;
    pthread_cond_broadcast(&hl_pool_wake);
    pthread_mutex_unlock(&hl_pool_lock);
    for (int i = 0; i < hl_num_workers; i++) pthread_join(hl_workers[i], NULL);
    pthread_mutex_lock(&hl_pool_lock);
    hl_num_workers = 0;
    hl_shutting_down = 0;
    hl_job = NULL;
    pthread_mutex_unlock(&hl_pool_lock);
}

WEAK int32_t __kmpc_global_thread_num(void *loc) {
    (void)loc;
    return hl_tid;
}

/* The thread count the code was compiled with; halide_set_num_threads decides at run time instead. */
WEAK void __kmpc_push_num_threads(void *loc, int32_t gtid, int32_t n) { (void)loc, (void)gtid, (void)n; }

static pthread_mutex_t hl_fork_lock = PTHREAD_MUTEX_INITIALIZER;

WEAK void __kmpc_fork_call(void *loc, int32_t argc, hl_microtask fn, ...) {
    (void)loc;
    hl_team team;
    team.fn = fn;
    team.argc = argc;
    va_list ap;
    va_start(ap, fn);
    for (int32_t i = 0; i < argc && i < HL_MAX_ARGS; i++) team.args[i] = va_arg(ap, void *);
    va_end(ap);
    team.barrier_count = team.barrier_generation = 0;
    pthread_mutex_init(&team.lock, NULL);
    pthread_cond_init(&team.cond, NULL);
    /* a parallel loop inside a parallel loop, or another caller's loop using the pool, runs on this thread */
    int pool = hl_current_team == NULL && pthread_mutex_trylock(&hl_fork_lock) == 0;
    team.nth = 1;
    if (pool) {
        pthread_mutex_lock(&hl_pool_lock);
        if (!hl_desired_threads) hl_desired_threads = hl_default_threads();
        team.nth = hl_desired_threads;
        while (hl_num_workers < team.nth - 1 &&
               pthread_create(&hl_workers[hl_num_workers], NULL, hl_worker_main,
                              (void *)(intptr_t)hl_num_workers) == 0)
            hl_num_workers++;
        if (team.nth > hl_num_workers + 1) team.nth = hl_num_workers + 1;
        if (team.nth > 1) {
            hl_job = &team;
            hl_job_pending = team.nth - 1;
            hl_job_generation++;
            pthread_cond_broadcast(&hl_pool_wake);
        }
        pthread_mutex_unlock(&hl_pool_lock);
    }
    hl_invoke(&team, 0);
    if (pool) {
        pthread_mutex_lock(&hl_pool_lock);
        while (team.nth > 1 && hl_job_pending > 0) pthread_cond_wait(&hl_pool_done, &hl_pool_lock);
        hl_job = NULL;
        pthread_mutex_unlock(&hl_pool_lock);
        pthread_mutex_unlock(&hl_fork_lock);
    }
    pthread_mutex_destroy(&team.lock);
    pthread_cond_destroy(&team.cond);
}

WEAK void __kmpc_barrier(void *loc, int32_t gtid) {
    (void)loc, (void)gtid;
    hl_team *t = hl_current_team;
    if (t == NULL || t->nth <= 1) return;
    pthread_mutex_lock(&t->lock);
    int32_t generation = t->barrier_generation;
    if (++t->barrier_count == t->nth) {
        t->barrier_count = 0;
        t->barrier_generation++;
        pthread_cond_broadcast(&t->cond);
    } else {
        while (generation == t->barrier_generation) pthread_cond_wait(&t->cond, &t->lock);
    }
    pthread_mutex_unlock(&t->lock);
}

/* Static schedule (kmp_sch_static, no chunk): one contiguous block of iterations per thread, the first
 * (trip % nth) threads one more; bounds are inclusive, as in libomp. */
#define HL_STATIC_INIT(NAME, T)                                                                                  \
    WEAK void NAME(void *loc, int32_t gtid, int32_t schedtype, int32_t *plastiter, T *plower, T *pupper,          \
                   T *pstride, T incr, T chunk) {                                                                \
        (void)loc, (void)gtid, (void)schedtype, (void)chunk;                                                     \
        hl_team *t = hl_current_team;                                                                            \
        int64_t nth = t ? t->nth : 1, tid = t ? hl_tid : 0;                                                      \
        int64_t step = (int64_t)incr == 0 ? 1 : (int64_t)incr;                                                  \
        int64_t lo = (int64_t)*plower, hi = (int64_t)*pupper;                                                   \
        int64_t trip = step > 0 ? (hi >= lo ? (hi - lo) / step + 1 : 0) : (lo >= hi ? (lo - hi) / -step + 1 : 0);\
        int64_t per = trip / nth, extra = trip % nth;                                                            \
        int64_t first = tid * per + (tid < extra ? tid : extra), count = per + (tid < extra ? 1 : 0);            \
        *plower = (T)(lo + first * step);                                                                        \
        *pupper = (T)(lo + (first + count - 1) * step);                                                          \
        *pstride = (T)(trip * step);                                                                             \
        if (plastiter) *plastiter = count > 0 && first + count == trip;                                          \
    }

HL_STATIC_INIT(__kmpc_for_static_init_4, int32_t)
HL_STATIC_INIT(__kmpc_for_static_init_4u, uint32_t)
HL_STATIC_INIT(__kmpc_for_static_init_8, int64_t)
HL_STATIC_INIT(__kmpc_for_static_init_8u, uint64_t)

WEAK void __kmpc_for_static_fini(void *loc, int32_t gtid) { (void)loc, (void)gtid; }

/* --- halide_buffer_t <-> the kernel's dense memref descriptors (the generated wrappers call these) ------------ */

typedef struct { uint8_t code, bits; uint16_t lanes; } hl_type;
typedef struct { int32_t min, extent, stride; uint32_t flags; } hl_dim;
typedef struct {   /* struct halide_buffer_t's layout (HalideRuntime.h) */
    uint64_t device;
    const void *device_interface;
    uint8_t *host;
    uint64_t flags;
    hl_type type;
    int32_t dimensions;
    hl_dim *dim;
    void *padding;
} hl_buffer;

/* Copies an n-d region (strides in elements, dimension 0 first): row by row along dimension 0, a memcpy where
 * both rows are dense, else a loop typed by the element size (interleaved images go through here). */
#define HL_COPY_ROW(T)                                                                                  \
    for (int64_t i = 0; i < n; i++) ((T *)d)[i * ds] = ((const T *)s)[i * ss];
static void hl_copy(char *dst, const int64_t *dst_strides, const char *src, const int64_t *src_strides,
                    const int32_t *extents, int rank, size_t elem) {
    int64_t index[16] = {0};
    for (int d = 0; d < rank; d++)
        if (extents[d] <= 0) return;
    if (rank == 0) {
        memcpy(dst, src, elem);
        return;
    }
    const int64_t n = extents[0], ds = dst_strides[0], ss = src_strides[0];
    for (;;) {
        int64_t so = 0, dof = 0;
        for (int k = 1; k < rank; k++) {
            so += index[k] * src_strides[k];
            dof += index[k] * dst_strides[k];
        }
        char *d = dst + dof * (int64_t)elem;
        const char *s = src + so * (int64_t)elem;
        if (ds == 1 && ss == 1) {
            memcpy(d, s, (size_t)n * elem);
        } else if (elem == 1) {
            HL_COPY_ROW(uint8_t)
        } else if (elem == 2) {
            HL_COPY_ROW(uint16_t)
        } else if (elem == 4) {
            HL_COPY_ROW(uint32_t)
        } else if (elem == 8) {
            HL_COPY_ROW(uint64_t)
        } else {
            for (int64_t i = 0; i < n; i++) memcpy(d + i * ds * (int64_t)elem, s + i * ss * (int64_t)elem, elem);
        }
        int k = 1;
        for (; k < rank; k++) {
            if (++index[k] < extents[k]) break;
            index[k] = 0;
        }
        if (k >= rank) return;
    }
}
#undef HL_COPY_ROW

static char *hl_region_start(hl_buffer *b, const int32_t *mins, size_t elem, int64_t *strides) {
    int64_t off = 0;
    for (int d = 0; d < b->dimensions; d++) {
        off += (int64_t)(mins[d] - b->dim[d].min) * b->dim[d].stride;
        strides[d] = b->dim[d].stride;
    }
    return (char *)b->host + off * (int64_t)elem;
}

/* Fills the dense descriptor of region (mins, extents) of b: b's own memory when its strides are dense over the
 * region, else a temporary copy (*temp, freed by __hl_aot_finish, which copies an output back). */
WEAK int __hl_aot_view(void *buffer, const int32_t *mins, const int32_t *extents, int output, int64_t *desc,
                       void **temp) {
    hl_buffer *b = (hl_buffer *)buffer;
    int rank = b->dimensions;
    size_t elem = (b->type.bits + 7) / 8;
    int64_t strides[16], dense[16], size = 1;
    int is_dense = 1;
    if (rank > 16) return -1;
    for (int d = 0; d < rank; d++) {
        dense[d] = size;
        if (extents[d] > 1 && b->dim[d].stride != size) is_dense = 0;
        size *= extents[d];
    }
    char *p = hl_region_start(b, mins, elem, strides);
    *temp = NULL;
    if (!is_dense) {
        char *t = (char *)halide_malloc(NULL, (size_t)size * elem);
        if (t == NULL) return -1;
        if (!output) hl_copy(t, dense, p, strides, extents, rank, elem);
        *temp = t;
        p = t;
    }
    /* {ptr allocated, ptr aligned, i64 offset, i64 sizes[rank], i64 strides[rank]}: the pointers are 4 bytes
     * each on a 32-bit target, so the i64 fields start after 2 * sizeof(void *) */
    ((void **)desc)[0] = ((void **)desc)[1] = p;
    int64_t *rest = (int64_t *)((char *)desc + 2 * sizeof(void *));
    rest[0] = 0;
    for (int k = 0; k < rank; k++) {   /* memref dimensions are outermost first */
        rest[1 + k] = extents[rank - 1 - k];
        rest[1 + rank + k] = dense[rank - 1 - k];
    }
    return 0;
}

WEAK void __hl_aot_finish(void *buffer, const int32_t *mins, const int32_t *extents, int output, void *temp) {
    hl_buffer *b = (hl_buffer *)buffer;
    if (temp != NULL) {
        if (output) {
            int64_t strides[16], dense[16], size = 1;
            size_t elem = (b->type.bits + 7) / 8;
            for (int d = 0; d < b->dimensions; d++) {
                dense[d] = size;
                size *= extents[d];
            }
            hl_copy(hl_region_start(b, mins, elem, strides), strides, (const char *)temp, dense, extents,
                    b->dimensions, elem);
        }
        halide_free(NULL, temp);
    }
    if (output) b->flags |= 1;   /* halide_buffer_flag_host_dirty */
}

/* Halide's spelling of a type code in messages ("float" in "float32"). */
WEAK const char *__hl_aot_type_code(int code) {
    static const char *names[] = {"int", "uint", "float", "handle", "bfloat"};
    return code >= 0 && code < 5 ? names[code] : "unknown";
}

/* hl.print and tracing (halide_mlir/runtime/trace.py has the JIT's versions): compiled code builds a line with
 * these calls, then halide_print writes it. The lanes of a vector event are printed one line each here. */
static __thread char hl_line[4096];
static __thread size_t hl_line_len;

static void hl_line_append(const char *s, size_t n) {
    if (n > sizeof(hl_line) - 2 - hl_line_len) n = sizeof(hl_line) - 2 - hl_line_len;
    memcpy(hl_line + hl_line_len, s, n);
    hl_line_len += n;
}

WEAK void halide_mlir_print_chars(int64_t packed) {
    char s[8];
    size_t n = 0;
    for (; n < 8 && ((uint64_t)packed >> (8 * n)) & 0xff; n++) s[n] = (char)(((uint64_t)packed >> (8 * n)) & 0xff);
    hl_line_append(s, n);
}

WEAK void halide_mlir_print_int(int64_t value, int32_t kind) {
    char s[32];
    int n = kind == 2 ? snprintf(s, sizeof(s), "%s", value ? "true" : "false")
          : kind == 1 ? snprintf(s, sizeof(s), "%llu", (unsigned long long)value)
                      : snprintf(s, sizeof(s), "%lld", (long long)value);
    hl_line_append(s, (size_t)n);
}

WEAK void halide_mlir_print_float(double value, int32_t kind) {
    char s[400];
    int n = snprintf(s, sizeof(s), kind == 1 ? "%e" : "%f", value);
    hl_line_append(s, n < (int)sizeof(s) ? (size_t)n : sizeof(s) - 1);
}

WEAK void halide_mlir_print_end(int32_t lanes) {
    (void)lanes;
    hl_line[hl_line_len++] = '\n';
    hl_line[hl_line_len] = 0;
    hl_line_len = 0;
    halide_print(NULL, hl_line);
}
