// Which heap blocks a process frees on another thread than the one that allocated them, and where they were
// allocated: LD_PRELOAD this library and it prints, at exit, to stderr, the frees by (allocating thread, freeing
// thread) and the allocation sites whose blocks most often cross, each with its call stack. glibc's allocator pays
// for a crossing: the block goes to the freeing thread's cache or, once that is full, back to the allocating
// thread's arena under its lock, and the allocating thread finds its own cache empty next time.
//
// Build: cc -O2 -shared -fPIC -o malloc_threads.so malloc_threads.c -lpthread
// Run:   MALLOC_THREADS_TOP=30 [MALLOC_THREADS_ORDER=allocations] LD_PRELOAD=./malloc_threads.so courier-bench small URL 16 20000
// Demangle Swift names in the output with `swift demangle --simplified`.
// It is slow (a stack walk per allocation): count with it, never time with it.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

enum { DEPTH = 10, SKIP = 2, BUCKETS = 1 << 20, NODES = 1 << 21, SITES = 1 << 16, PAIRS = 64 };

struct node { void *pointer; int tid; int site; int next; };
struct site { uint64_t hash; void *frames[DEPTH]; int depth; int tid; unsigned long allocations, crossed, kept; };
struct pair { int from, to; unsigned long frees; };

static struct node nodes[NODES];
static int buckets[BUCKETS];
static int free_nodes = -1, next_node = 1;
static struct site sites[SITES];
static struct pair pairs[PAIRS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static __thread int inside;
static __thread int thread_id;
static int ready;

static int current_tid(void) {
    if (!thread_id) thread_id = (int)syscall(SYS_gettid);
    return thread_id;
}

static unsigned bucket_of(void *pointer) { return (unsigned)(((uintptr_t)pointer >> 4) * 2654435761u) & (BUCKETS - 1); }

static int site_of(void **frames, int depth) {
    uint64_t hash = 1469598103934665603ull;
    for (int i = 0; i < depth; i++) hash = (hash ^ (uintptr_t)frames[i]) * 1099511628211ull;
    unsigned index = (unsigned)hash & (SITES - 1);
    for (unsigned probe = 0; probe < SITES; probe++, index = (index + 1) & (SITES - 1)) {
        struct site *site = &sites[index];
        if (site->depth == 0) {
            site->hash = hash;
            site->depth = depth;
            site->tid = current_tid();
            memcpy(site->frames, frames, sizeof(void *) * depth);
            return (int)index;
        }
        if (site->hash == hash) return (int)index;
    }
    return -1;
}

static void track(void *pointer) {
    if (!pointer || !ready || inside) return;
    inside = 1;
    void *frames[DEPTH + SKIP];
    int depth = backtrace(frames, DEPTH + SKIP) - SKIP;
    if (depth < 1) depth = 0;
    int tid = current_tid();
    pthread_mutex_lock(&lock);
    int site = depth > 0 ? site_of(frames + SKIP, depth) : -1;
    int index = free_nodes;
    if (index > 0) free_nodes = nodes[index].next; else if (next_node < NODES) index = next_node++; else index = -1;
    if (index > 0) {
        unsigned bucket = bucket_of(pointer);
        nodes[index] = (struct node){ pointer, tid, site, buckets[bucket] };
        buckets[bucket] = index;
        if (site >= 0) sites[site].allocations++;
    }
    pthread_mutex_unlock(&lock);
    inside = 0;
}

static void untrack(void *pointer) {
    if (!pointer || !ready) return;
    int tid = current_tid();
    pthread_mutex_lock(&lock);
    unsigned bucket = bucket_of(pointer);
    int *link = &buckets[bucket];
    while (*link > 0 && nodes[*link].pointer != pointer) link = &nodes[*link].next;
    if (*link > 0) {
        int index = *link;
        struct node node = nodes[index];
        *link = node.next;
        nodes[index].next = free_nodes;
        free_nodes = index;
        if (node.site >= 0) {
            if (node.tid != tid) sites[node.site].crossed++; else sites[node.site].kept++;
        }
        for (int i = 0; i < PAIRS; i++) {
            if (pairs[i].frees == 0) { pairs[i] = (struct pair){ node.tid, tid, 1 }; break; }
            if (pairs[i].from == node.tid && pairs[i].to == tid) { pairs[i].frees++; break; }
        }
    }
    pthread_mutex_unlock(&lock);
}

void *malloc(size_t size) { void *p = __libc_malloc(size); track(p); return p; }
void *calloc(size_t n, size_t size) { void *p = __libc_calloc(n, size); track(p); return p; }
void free(void *pointer) { untrack(pointer); __libc_free(pointer); }
void *realloc(void *pointer, size_t size) {
    untrack(pointer);
    void *p = __libc_realloc(pointer, size);
    track(p);
    return p;
}
void *memalign(size_t alignment, size_t size) { void *p = __libc_memalign(alignment, size); track(p); return p; }
void *aligned_alloc(size_t alignment, size_t size) { return memalign(alignment, size); }
int posix_memalign(void **out, size_t alignment, size_t size) {
    void *p = __libc_memalign(alignment, size);
    if (!p) return 12;
    track(p);
    *out = p;
    return 0;
}

__attribute__((constructor)) static void start(void) {
    void *frames[4];
    inside = 1;
    backtrace(frames, 4);   // loads the unwinder (which allocates) before any block is tracked
    inside = 0;
    ready = 1;
}

static int by_crossed(const void *a, const void *b) {
    const struct site *left = a, *right = b;
    return left->crossed < right->crossed ? 1 : left->crossed > right->crossed ? -1 : 0;
}

static int by_allocations(const void *a, const void *b) {
    const struct site *left = a, *right = b;
    return left->allocations < right->allocations ? 1 : left->allocations > right->allocations ? -1 : 0;
}

__attribute__((destructor)) static void report(void) {
    ready = 0;
    const char *top_text = getenv("MALLOC_THREADS_TOP");
    int top = top_text ? atoi(top_text) : 20;
    unsigned long total = 0, crossed = 0;
    fprintf(stderr, "malloc_threads: frees by allocating thread -> freeing thread\n");
    for (int i = 0; i < PAIRS && pairs[i].frees; i++) {
        fprintf(stderr, "  %d -> %d: %lu\n", pairs[i].from, pairs[i].to, pairs[i].frees);
        total += pairs[i].frees;
        if (pairs[i].from != pairs[i].to) crossed += pairs[i].frees;
    }
    fprintf(stderr, "malloc_threads: %lu frees of tracked blocks, %lu on another thread\n", total, crossed);
    static struct site sorted[SITES];
    int count = 0;
    for (int i = 0; i < SITES; i++) if (sites[i].depth) sorted[count++] = sites[i];
    const char *order = getenv("MALLOC_THREADS_ORDER");
    int all = order && strcmp(order, "allocations") == 0;
    qsort(sorted, count, sizeof sorted[0], all ? by_allocations : by_crossed);
    for (int i = 0; i < count && i < top && (all || sorted[i].crossed); i++) {
        fprintf(stderr, "site %d (thread %d): %lu crossed, %lu freed where allocated, %lu allocated\n", i, sorted[i].tid,
                sorted[i].crossed, sorted[i].kept, sorted[i].allocations);
        for (int f = 0; f < sorted[i].depth; f++) {
            Dl_info info;
            if (dladdr(sorted[i].frames[f], &info) && info.dli_sname) {
                fprintf(stderr, "    %s+%#lx\n", info.dli_sname, (unsigned long)((char *)sorted[i].frames[f] - (char *)info.dli_saddr));
            } else if (dladdr(sorted[i].frames[f], &info) && info.dli_fname) {
                fprintf(stderr, "    %s+%#lx\n", info.dli_fname, (unsigned long)((char *)sorted[i].frames[f] - (char *)info.dli_fbase));
            } else {
                fprintf(stderr, "    %p\n", sorted[i].frames[f]);
            }
        }
    }
}
