// The baseline: a raw libcurl client on the multi interface, doing exactly what the Swift
// clients do, with as little around libcurl as C allows. Prints one JSON line of figures.
//
// usage: raw-curl small URL CONCURRENCY REQUESTS [CAFILE]
//        raw-curl download-memory URL [CAFILE] | download-file URL OUTPUT [CAFILE] | upload URL FILE [CAFILE]
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

typedef struct { char *data; size_t size, capacity; FILE *file; } Sink;

static size_t write_memory(char *ptr, size_t size, size_t n, void *user) {
    Sink *sink = user;
    size_t len = size * n;
    if (sink->file) return fwrite(ptr, 1, len, sink->file);
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

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

// The processor time of the calling thread, in seconds: the main thread runs every transfer, so it is the busiest.
static double thread_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static const char *cafile = NULL;

static CURL *make(const char *url, Sink *sink) {
    CURL *easy = curl_easy_init();
    curl_easy_setopt(easy, CURLOPT_URL, url);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, write_memory);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, sink);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_PIPEWAIT, 1L);
    curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
    curl_easy_setopt(easy, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(easy, CURLOPT_BUFFERSIZE, 256L * 1024);
    if (cafile) curl_easy_setopt(easy, CURLOPT_CAINFO, cafile);
    return easy;
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: see source\n"); return 2; }
    const char *workload = argv[1], *url = argv[2];
    long concurrency = 1, requests = 1;
    const char *path = NULL;
    if (strcmp(workload, "small") == 0) {
        if (argc < 5) return 2;
        concurrency = atol(argv[3]); requests = atol(argv[4]);
        if (argc > 5) cafile = argv[5];
    } else if (strcmp(workload, "download-memory") == 0) {
        if (argc > 3) cafile = argv[3];
    } else {
        if (argc < 4) return 2;
        path = argv[3];
        if (argc > 4) cafile = argv[4];
    }
    curl_global_init(CURL_GLOBAL_ALL);
    CURLM *multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, 64L);
    curl_multi_setopt(multi, CURLMOPT_PIPELINING, (long)CURLPIPE_MULTIPLEX);

    double start = now();
    long started = 0, finished = 0, connections = 0, failures = 0;
    long long bytes = 0;
    Sink *sinks = calloc(concurrency, sizeof(Sink));
    FILE *upload = NULL;
    struct stat info;

    for (long i = 0; i < concurrency && started < requests; i++, started++) {
        CURL *easy = make(url, &sinks[i]);
        curl_easy_setopt(easy, CURLOPT_PRIVATE, (void *)(sinks + i));
        if (strcmp(workload, "download-file") == 0) sinks[i].file = fopen(path, "wb");
        if (strcmp(workload, "upload") == 0) {
            upload = fopen(path, "rb");
            fstat(fileno(upload), &info);
            curl_easy_setopt(easy, CURLOPT_UPLOAD, 1L);
            curl_easy_setopt(easy, CURLOPT_READDATA, upload);
            curl_easy_setopt(easy, CURLOPT_INFILESIZE_LARGE, (curl_off_t)info.st_size);
            curl_easy_setopt(easy, CURLOPT_UPLOAD_BUFFERSIZE, 256L * 1024);
        }
        curl_multi_add_handle(multi, easy);
    }
    int running = 1;
    while (finished < requests) {
        curl_multi_perform(multi, &running);
        CURLMsg *message;
        int left;
        while ((message = curl_multi_info_read(multi, &left))) {
            if (message->msg != CURLMSG_DONE) continue;
            CURL *easy = message->easy_handle;
            Sink *sink;
            long connects = 0, status = 0;
            curl_off_t down = 0, up = 0;
            curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&sink);
            curl_easy_getinfo(easy, CURLINFO_NUM_CONNECTS, &connects);
            curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
            curl_easy_getinfo(easy, CURLINFO_SIZE_DOWNLOAD_T, &down);
            curl_easy_getinfo(easy, CURLINFO_SIZE_UPLOAD_T, &up);
            if (message->data.result != CURLE_OK || status >= 400) failures++;
            connections += connects;
            bytes += down + up;
            finished++;
            curl_multi_remove_handle(multi, easy);
            if (sink->file) { fclose(sink->file); sink->file = NULL; }
            sink->size = 0;
            if (started < requests) {
                curl_easy_setopt(easy, CURLOPT_URL, url);   // reuse the handle, as a pool would
                curl_multi_add_handle(multi, easy);
                started++;
            } else {
                curl_easy_cleanup(easy);
            }
        }
        if (finished < requests) curl_multi_poll(multi, NULL, 0, 1000, NULL);
    }
    double seconds = now() - start;
    // Before the process's figures, as the other clients read it: never more than their sum.
    double busiest = thread_seconds();
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    printf("{\"client\":\"raw-libcurl\",\"workload\":\"%s\",\"concurrency\":%ld,\"requests\":%ld,"
           "\"failures\":%ld,\"seconds\":%.6f,\"cpu_seconds\":%.6f,\"user_seconds\":%.6f,\"system_seconds\":%.6f,"
           "\"busiest_thread_seconds\":%.6f,\"max_rss_kib\":%ld,\"bytes\":%lld,\"connections\":%ld}\n",
           workload, concurrency, requests, failures, seconds,
           usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6,
           usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6, usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6,
           busiest, usage.ru_maxrss, bytes, connections);
    if (upload) fclose(upload);
    curl_multi_cleanup(multi);
    return failures ? 1 : 0;
}
