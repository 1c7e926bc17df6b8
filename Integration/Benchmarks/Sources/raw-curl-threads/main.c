// What a client built like Courier could reach at best: raw-curl's small GETs (the same options, the same
// handle reuse) with the callers on a pool of worker threads, as Swift's shared pool runs ordinary async code,
// and libcurl on a thread of its own. No Swift, no allocation of ours per call: only the thread crossings a
// design pays. Prints one JSON line of figures, as raw-curl does.
//
// usage: raw-curl-threads MODE URL CONCURRENCY REQUESTS [CAFILE]
//   handoff  today's design: a caller queues its transfer and wakes the curl thread (curl_multi_wakeup),
//            which adds it and runs curl_multi_perform/curl_multi_poll; a finished transfer queues the
//            caller's continuation on the pool (two crossings per call)
//   direct   the socket-action design: a caller adds its transfer and drives it under the multi handle's
//            lock (curl_multi_socket_action on its own thread: the request is written there); the curl thread
//            only waits in epoll for responses and timers; a finished transfer queues the continuation on the
//            pool (one crossing per call)
// RAW_CURL_WORKERS: the pool's threads (default: one per online core, as Swift's shared pool has); 0 runs the
// callers' continuations on the curl thread, which measures each way of driving libcurl without crossings.
// A pool thread that finds no job sleeps on a condition variable at once, as libdispatch's workers do.
#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}


typedef struct { char *data; size_t size, capacity; } Sink;

static size_t write_memory(char *ptr, size_t size, size_t n, void *user) {
    Sink *sink = user;
    size_t len = size * n;
    if (sink->size + len > sink->capacity) {
        size_t capacity = sink->capacity ? sink->capacity * 2 : 16384;
        while (capacity < sink->size + len) capacity *= 2;
        char *grown = realloc(sink->data, capacity);
        if (!grown) return 0;
        sink->data = grown;
        sink->capacity = capacity;
    }
    memcpy(sink->data + sink->size, ptr, len);
    sink->size += len;
    return len;
}

// One call slot: its easy handle (reused, as raw-curl reuses them), its body, and its outcome.
typedef struct { CURL *easy; Sink sink; CURLcode result; long status, connects; } Call;

static const char *url;
static long requests;
static Call *calls;
static CURLM *multi;
static atomic_long started, finished, failures, connections;
static _Atomic long long bytes;

// MARK: the pool: a queue of calls whose continuation is due, and the threads that run them

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_ready = PTHREAD_COND_INITIALIZER;
static long *pool_queue;           // a ring of call indices, as long as the calls
static long pool_capacity, pool_head, pool_count;
static int pool_done;

static void pool_push(long index) {
    pthread_mutex_lock(&pool_lock);
    pool_queue[(pool_head + pool_count) % pool_capacity] = index;
    pool_count++;
    pthread_cond_signal(&pool_ready);
    pthread_mutex_unlock(&pool_lock);
}

static void submit(long index);
static void wake_loop(void);

// A call's continuation: count what finished, then make the next call from the same slot (a caller's loop).
static void continuation(long index, int first) {
    Call *call = &calls[index];
    if (!first) {
        if (call->result != CURLE_OK || call->status >= 400) atomic_fetch_add(&failures, 1);
        atomic_fetch_add(&bytes, (long long)call->sink.size);
        atomic_fetch_add(&connections, call->connects);
        call->sink.size = 0;
        if (atomic_fetch_add(&finished, 1) + 1 == requests) {
            pthread_mutex_lock(&pool_lock);
            pool_done = 1;
            pthread_cond_broadcast(&pool_ready);
            pthread_mutex_unlock(&pool_lock);
            wake_loop();   // it may have gone to sleep before this count reached the end
        }
    }
    if (atomic_fetch_add(&started, 1) < requests) submit(index);
}

// The processor time of the calling thread, in seconds.
static double thread_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

// The most processor time any thread used: the main thread's, or a pool thread's as it ended (under pool_lock).
static double busiest_thread_seconds;

static void *pool_worker(void *unused) {
    (void)unused;
    for (;;) {
        pthread_mutex_lock(&pool_lock);
        while (pool_count == 0 && !pool_done) pthread_cond_wait(&pool_ready, &pool_lock);
        if (pool_count == 0) {
            double mine = thread_seconds();
            if (mine > busiest_thread_seconds) busiest_thread_seconds = mine;
            pthread_mutex_unlock(&pool_lock);
            return NULL;
        }
        long index = pool_queue[pool_head];
        pool_head = (pool_head + 1) % pool_capacity;
        pool_count--;
        pthread_mutex_unlock(&pool_lock);
        continuation(index, 0);
    }
}

// Every finished transfer: its outcome into its slot, its index into `done` (as many as there are calls).
// Holds the multi handle; the caller queues the continuations once it has let go of it, so that a woken pool
// thread does not at once wait for the lock its waker holds.
static long read_finished(long *done) {
    CURLMsg *message;
    int left;
    long count = 0;
    while ((message = curl_multi_info_read(multi, &left))) {
        if (message->msg != CURLMSG_DONE) continue;
        Call *call;
        curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, (char **)&call);
        call->result = message->data.result;
        curl_easy_getinfo(message->easy_handle, CURLINFO_RESPONSE_CODE, &call->status);
        curl_easy_getinfo(message->easy_handle, CURLINFO_NUM_CONNECTS, &call->connects);
        curl_multi_remove_handle(multi, message->easy_handle);
        done[count++] = call - calls;
    }
    return count;
}

static long workers;

// With no pool (RAW_CURL_WORKERS=0) the curl thread runs the continuations itself, as raw-curl does: a baseline
// for each way of driving libcurl without the crossings.
static void queue_continuations(const long *done, long count) {
    for (long i = 0; i < count; i++) {
        if (workers == 0) continuation(done[i], 0); else pool_push(done[i]);
    }
}

static int all_finished(void) { return atomic_load(&finished) >= requests; }

// MARK: handoff: a command queue the curl thread drains, woken by curl_multi_wakeup

static pthread_mutex_t command_lock = PTHREAD_MUTEX_INITIALIZER;
static long *commands;
static long command_count;

static void submit_handoff(long index) {
    pthread_mutex_lock(&command_lock);
    commands[command_count++] = index;
    pthread_mutex_unlock(&command_lock);
    curl_multi_wakeup(multi);
}

static void run_handoff_loop(void) {
    long *batch = calloc(pool_capacity, sizeof(long)), *done = calloc(pool_capacity, sizeof(long));
    while (!all_finished()) {
        pthread_mutex_lock(&command_lock);
        long count = command_count;
        memcpy(batch, commands, count * sizeof(long));
        command_count = 0;
        pthread_mutex_unlock(&command_lock);
        for (long i = 0; i < count; i++) {
            curl_easy_setopt(calls[batch[i]].easy, CURLOPT_URL, url);
            curl_multi_add_handle(multi, calls[batch[i]].easy);
        }
        int running;
        curl_multi_perform(multi, &running);
        queue_continuations(done, read_finished(done));
        if (!all_finished()) curl_multi_poll(multi, NULL, 0, 1000, NULL);
    }
    free(batch);
    free(done);
}

// MARK: direct: callers drive libcurl under a lock; the curl thread waits in epoll

static pthread_mutex_t multi_lock = PTHREAD_MUTEX_INITIALIZER;
static int epoll_fd, wake_fd;
static _Atomic long long loop_waits_until = -1; // when the curl thread's epoll_wait ends (µs), -1 while it works
static atomic_long loop_wakeups;                 // eventfd writes: a caller's transfer needs libcurl's timer sooner

static long long now_us(void) { return (long long)(now() * 1e6); }

static int on_socket(CURL *easy, curl_socket_t fd, int what, void *unused, void *assigned) {
    (void)easy; (void)unused;
    struct epoll_event event = { .data.fd = fd };
    if (what == CURL_POLL_REMOVE) {
        epoll_ctl(epoll_fd, EPOLL_CTL_DEL, fd, NULL);
        curl_multi_assign(multi, fd, NULL);
        return 0;
    }
    event.events = (what & CURL_POLL_IN ? EPOLLIN : 0) | (what & CURL_POLL_OUT ? EPOLLOUT : 0);
    if (assigned) {
        epoll_ctl(epoll_fd, EPOLL_CTL_MOD, fd, &event);
    } else {
        epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &event);
        curl_multi_assign(multi, fd, (void *)1);
    }
    return 0;
}

// libcurl's timer is read with curl_multi_timeout under the lock (no CURLMOPT_TIMERFUNCTION: its timer is
// one-shot and reported only when it changes, which an application's own clock easily gets wrong).

// After a caller's libcurl calls, still holding the lock: wakes the curl thread when libcurl's next timeout
// now ends before the wait the curl thread published (libcurl sets 0 ms ones mid-call, too).
static void wake_for_timer(void) {
    long timeout = -1;
    curl_multi_timeout(multi, &timeout);
    long long waits_until = atomic_load(&loop_waits_until);
    if (timeout >= 0 && waits_until >= 0 && now_us() + timeout * 1000LL < waits_until) {
        uint64_t one = 1;
        atomic_fetch_add(&loop_wakeups, 1);
        if (write(wake_fd, &one, sizeof one) < 0) perror("write eventfd");
    }
}

static void submit_direct(long index) {
    static _Thread_local long *done;   // one list per caller thread, as long as the calls
    if (!done) done = calloc(pool_capacity, sizeof(long));
    int running;
    long count;
    pthread_mutex_lock(&multi_lock);
    curl_easy_setopt(calls[index].easy, CURLOPT_URL, url);
    // Adding sets a 0 ms timeout, which the socket_action just below runs on this thread: the request is
    // written here.
    curl_multi_add_handle(multi, calls[index].easy);
    curl_multi_socket_action(multi, CURL_SOCKET_TIMEOUT, 0, &running);
    count = read_finished(done);   // calls that ended meanwhile (a failure can end one at once)
    wake_for_timer();
    pthread_mutex_unlock(&multi_lock);
    queue_continuations(done, count);
}

static void run_direct_loop(void) {
    struct epoll_event events[64];
    long *done = calloc(pool_capacity, sizeof(long)), count = 0;
    pthread_mutex_lock(&multi_lock);
    while (!all_finished()) {
        // Publish the wait's end under the lock, so that a caller whose transfer needs the timer sooner wakes us.
        long timeout = -1;
        curl_multi_timeout(multi, &timeout);
        int wait = timeout < 0 || timeout > 1000 ? 1000 : (int)timeout;
        atomic_store(&loop_waits_until, now_us() + wait * 1000LL);
        pthread_mutex_unlock(&multi_lock);
        queue_continuations(done, count);
        count = 0;
        int n = wait > 0 ? epoll_wait(epoll_fd, events, 64, wait) : epoll_wait(epoll_fd, events, 64, 0);
        // Busy from here until the next wait is published: callers need not wake it (they may have, meanwhile).
        atomic_store(&loop_waits_until, -1);
        if (n < 0 && errno != EINTR) { perror("epoll_wait"); exit(1); }
        int running;
        pthread_mutex_lock(&multi_lock);
        for (int i = 0; i < n; i++) {
            int fd = events[i].data.fd;
            if (fd == wake_fd) {
                uint64_t ignored;
                if (read(wake_fd, &ignored, sizeof ignored) < 0) perror("read eventfd");
                continue;
            }
            int mask = (events[i].events & EPOLLIN ? CURL_CSELECT_IN : 0)
                | (events[i].events & EPOLLOUT ? CURL_CSELECT_OUT : 0)
                | (events[i].events & (EPOLLERR | EPOLLHUP) ? CURL_CSELECT_ERR : 0);
            curl_multi_socket_action(multi, fd, mask, &running);
        }
        timeout = -1;
        curl_multi_timeout(multi, &timeout);
        if (timeout == 0) curl_multi_socket_action(multi, CURL_SOCKET_TIMEOUT, 0, &running);
        count = read_finished(done);
    }
    pthread_mutex_unlock(&multi_lock);
    queue_continuations(done, count);
    free(done);
}

// MARK: main

static int direct;
static void submit(long index) { if (direct) submit_direct(index); else submit_handoff(index); }

static void wake_loop(void) {
    uint64_t one = 1;
    if (!direct) curl_multi_wakeup(multi);
    else if (write(wake_fd, &one, sizeof one) < 0) perror("write eventfd");
}

int main(int argc, char **argv) {
    if (argc < 5) { fprintf(stderr, "usage: raw-curl-threads handoff|direct URL CONCURRENCY REQUESTS [CAFILE]\n"); return 2; }
    const char *mode = argv[1];
    if (strcmp(mode, "direct") == 0) direct = 1;
    else if (strcmp(mode, "handoff") != 0) { fprintf(stderr, "unknown mode %s\n", mode); return 2; }
    url = argv[2];
    long concurrency = atol(argv[3]);
    requests = atol(argv[4]);
    const char *cafile = argc > 5 ? argv[5] : NULL;
    workers = getenv("RAW_CURL_WORKERS") ? atol(getenv("RAW_CURL_WORKERS")) : sysconf(_SC_NPROCESSORS_ONLN);
    if (concurrency < 1 || requests < concurrency || workers < 0) { fprintf(stderr, "bad numbers\n"); return 2; }

    curl_global_init(CURL_GLOBAL_ALL);
    multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, 64L);
    curl_multi_setopt(multi, CURLMOPT_PIPELINING, (long)CURLPIPE_MULTIPLEX);
    if (direct) {
        epoll_fd = epoll_create1(EPOLL_CLOEXEC);
        wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        struct epoll_event event = { .events = EPOLLIN, .data.fd = wake_fd };
        epoll_ctl(epoll_fd, EPOLL_CTL_ADD, wake_fd, &event);
        curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, on_socket);
    }
    calls = calloc(concurrency, sizeof(Call));
    pool_queue = calloc(concurrency, sizeof(long));
    commands = calloc(concurrency, sizeof(long));
    pool_capacity = concurrency;
    for (long i = 0; i < concurrency; i++) {
        CURL *easy = curl_easy_init();
        curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, write_memory);
        curl_easy_setopt(easy, CURLOPT_WRITEDATA, &calls[i].sink);
        curl_easy_setopt(easy, CURLOPT_PRIVATE, (void *)&calls[i]);
        curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(easy, CURLOPT_PIPEWAIT, 1L);
        curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
        curl_easy_setopt(easy, CURLOPT_TCP_NODELAY, 1L);
        curl_easy_setopt(easy, CURLOPT_BUFFERSIZE, 256L * 1024);
        if (cafile) curl_easy_setopt(easy, CURLOPT_CAINFO, cafile);
        calls[i].easy = easy;
    }

    double start = now();
    pthread_t *threads = calloc(workers, sizeof(pthread_t));
    for (long i = 0; i < workers; i++) pthread_create(&threads[i], NULL, pool_worker, NULL);
    // The first calls are made from the main thread, as a program's first tasks start from its main.
    for (long i = 0; i < concurrency; i++) continuation(i, 1);
    if (direct) run_direct_loop(); else run_handoff_loop();
    for (long i = 0; i < workers; i++) pthread_join(threads[i], NULL);
    double seconds = now() - start;
    double main_seconds = thread_seconds();
    if (main_seconds > busiest_thread_seconds) busiest_thread_seconds = main_seconds;

    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    printf("{\"client\":\"raw-libcurl-%s\",\"workload\":\"small\",\"concurrency\":%ld,\"requests\":%ld,"
           "\"workers\":%ld,\"failures\":%ld,\"seconds\":%.6f,\"cpu_seconds\":%.6f,\"user_seconds\":%.6f,"
           "\"system_seconds\":%.6f,\"busiest_thread_seconds\":%.6f,\"max_rss_kib\":%ld,"
           "\"bytes\":%lld,\"connections\":%ld,\"timer_wakeups\":%ld,\"voluntary_switches\":%ld,\"involuntary_switches\":%ld}\n",
           mode, concurrency, requests, workers, atomic_load(&failures), seconds,
           usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6,
           usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6, usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6,
           busiest_thread_seconds, usage.ru_maxrss, atomic_load(&bytes), atomic_load(&connections), atomic_load(&loop_wakeups), usage.ru_nvcsw, usage.ru_nivcsw);
    for (long i = 0; i < concurrency; i++) { curl_easy_cleanup(calls[i].easy); free(calls[i].sink.data); }
    curl_multi_cleanup(multi);
    return atomic_load(&failures) ? 1 : 0;
}
