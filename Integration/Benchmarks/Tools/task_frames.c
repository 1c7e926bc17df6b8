// Counts a Swift process's async frames: LD_PRELOAD this library and it writes, at exit, one line per place that
// called `swift_task_alloc` and size asked for: `OFFSET SIZE COUNT OBJECT`, OFFSET being the return address less
// the load address of OBJECT. An async function asks the task's allocator for its callee's frame (its "context")
// at every call, so the sizes say how much of the task's memory a call takes: whatever does not fit the task's
// first slab costs the allocator a `malloc` per slab. Integration/Benchmarks/Tools/task_frames.py names the callers.
//
// Build: cc -O2 -shared -fPIC -o task_frames.so task_frames.c -ldl
// Run:   TASK_FRAMES_OUT=frames.txt LD_PRELOAD=./task_frames.so courier-bench small URL 16 4000
// Calls from the Swift runtime's own code do not go through the PLT and are not seen; Courier's and the
// client's are.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define SLOTS 4096
static _Atomic uintptr_t callers[SLOTS];
static size_t sizes[SLOTS];
static atomic_ulong counts[SLOTS];
static void *(*real_task_alloc)(size_t);

// One slot per (caller, size), found by open addressing; a slot is claimed by a compare-exchange on its caller,
// so threads that race for it agree on its owner. A full table drops what does not fit (4,096 distinct sites is
// far more than a client has).
static void count(uintptr_t caller, size_t size) {
    size_t start = (caller * 31 + size) % SLOTS;
    for (size_t probe = 0; probe < SLOTS; probe++) {
        size_t slot = (start + probe) % SLOTS;
        uintptr_t owner = atomic_load(&callers[slot]);
        if (owner == 0) {
            uintptr_t expected = 0;
            if (atomic_compare_exchange_strong(&callers[slot], &expected, caller)) {
                sizes[slot] = size;
                atomic_fetch_add(&counts[slot], 1);
                return;
            }
            owner = expected;
        }
        if (owner == caller && sizes[slot] == size) {
            atomic_fetch_add(&counts[slot], 1);
            return;
        }
    }
}

static void report(void) {
    const char *path = getenv("TASK_FRAMES_OUT");
    FILE *out = path ? fopen(path, "w") : stderr;
    if (!out) return;
    for (size_t slot = 0; slot < SLOTS; slot++) {
        unsigned long n = atomic_load(&counts[slot]);
        if (n == 0) continue;
        uintptr_t caller = atomic_load(&callers[slot]);
        Dl_info info;
        if (dladdr((void *)caller, &info) == 0 || info.dli_fname == NULL) continue;
        fprintf(out, "%lx %zu %lu %s\n", (unsigned long)(caller - (uintptr_t)info.dli_fbase), sizes[slot], n, info.dli_fname);
    }
    if (path) fclose(out);
}

__attribute__((constructor)) static void start(void) {
    real_task_alloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "swift_task_alloc");
    atexit(report);
}

// swift_task_alloc takes its size in the first integer register under both the C and the Swift calling convention.
void *swift_task_alloc(size_t size) {
    count((uintptr_t)__builtin_return_address(0), size);
    return real_task_alloc(size);
}
