// Counts a process's heap allocations: LD_PRELOAD this library and it prints, at exit, to stderr,
// `malloc_count: ALL MALLOC` — the calls to malloc, calloc, realloc, posix_memalign, aligned_alloc and
// memalign the process made, and of those the calls to malloc alone (what `perf probe … malloc` counts). Scripts/bench.sh divides it by the requests a benchmark client made.
//
// Build: cc -O2 -shared -fPIC -o malloc_count.so malloc_count.c -ldl
// Why not `perf probe`: uprobes need a kernel and permissions a machine may not give; this needs neither.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static atomic_ulong count;
static atomic_ulong malloc_only;
static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);

// dlsym itself may call calloc before real_calloc is known: serve it from a small static buffer.
static char bootstrap[4096];
static size_t bootstrap_used;

static void *bootstrap_alloc(size_t size) {
    size = (size + 15) & ~(size_t)15;
    if (bootstrap_used + size > sizeof bootstrap) return NULL;
    void *p = bootstrap + bootstrap_used;
    bootstrap_used += size;
    return p;
}

static int resolving;
static void resolve(void) {
    if (real_malloc || resolving) return;
    resolving = 1;
    real_malloc = dlsym(RTLD_NEXT, "malloc");
    real_calloc = dlsym(RTLD_NEXT, "calloc");
    real_realloc = dlsym(RTLD_NEXT, "realloc");
    real_posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
    real_aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
    real_memalign = dlsym(RTLD_NEXT, "memalign");
    resolving = 0;
}

void *malloc(size_t size) {
    resolve();
    if (!real_malloc) return bootstrap_alloc(size);
    atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&malloc_only, 1, memory_order_relaxed);
    return real_malloc(size);
}

void *calloc(size_t n, size_t size) {
    resolve();
    if (!real_calloc) {
        void *p = bootstrap_alloc(n * size);   // static storage is zeroed
        return p;
    }
    atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
    return real_calloc(n, size);
}

void *realloc(void *pointer, size_t size) {
    resolve();
    atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
    return real_realloc(pointer, size);
}

int posix_memalign(void **out, size_t alignment, size_t size) {
    resolve();
    atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
    return real_posix_memalign(out, alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    resolve();
    atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
    return real_aligned_alloc(alignment, size);
}

void *memalign(size_t alignment, size_t size) {
    resolve();
    atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
    return real_memalign(alignment, size);
}

void free(void *pointer) {
    static void (*real_free)(void *);
    if (pointer >= (void *)bootstrap && pointer < (void *)(bootstrap + sizeof bootstrap)) return;
    if (!real_free) real_free = dlsym(RTLD_NEXT, "free");
    real_free(pointer);
}

__attribute__((destructor)) static void report(void) {
    char line[64];
    int length = snprintf(line, sizeof line, "malloc_count: %lu %lu\n", atomic_load(&count), atomic_load(&malloc_only));
    if (length > 0) (void)!write(2, line, (size_t)length);
}
