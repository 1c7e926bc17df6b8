// Typed wrappers around libcurl for Swift, which cannot call C variadic functions
// (curl_easy_setopt, curl_easy_getinfo, curl_multi_setopt) or import function-like macros.
// Only CourierCurl imports this module, with `internal import`.
#ifndef COURIER_CCURL_SHIM_H
#define COURIER_CCURL_SHIM_H

#include <curl/curl.h>
#include <errno.h>
#include <sys/socket.h>

// MARK: curl_easy_setopt

static inline CURLcode ccurl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode ccurl_easy_setopt_write_function(CURL *handle, CURLoption option,
        size_t (*function)(char *, size_t, size_t, void *)) {
    return curl_easy_setopt(handle, option, function);
}
static inline CURLcode ccurl_easy_setopt_read_function(CURL *handle,
        size_t (*function)(char *, size_t, size_t, void *)) {
    return curl_easy_setopt(handle, CURLOPT_READFUNCTION, function);
}
static inline CURLcode ccurl_easy_setopt_xferinfo_function(CURL *handle,
        int (*function)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t)) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, function);
}

static inline CURLcode ccurl_easy_setopt_seek_function(CURL *handle,
        int (*function)(void *, curl_off_t, int)) {
    return curl_easy_setopt(handle, CURLOPT_SEEKFUNCTION, function);
}

/// CURLOPT_DEBUGFUNCTION: libcurl's verbose trace, handed to a function instead of stderr.
static inline CURLcode ccurl_easy_setopt_debug_function(CURL *handle,
        int (*function)(CURL *, curl_infotype, char *, size_t, void *)) {
    return curl_easy_setopt(handle, CURLOPT_DEBUGFUNCTION, function);
}

/// CURLOPT_SSL_CTX_FUNCTION: called with the TLS library's context (an OpenSSL `SSL_CTX *` when libcurl
/// uses OpenSSL) before each new TLS connection's handshake. CCurl declares no OpenSSL type: the context
/// stays a `void *` here.
static inline CURLcode ccurl_easy_setopt_ssl_ctx_function(CURL *handle,
        CURLcode (*function)(CURL *, void *, void *)) {
    return curl_easy_setopt(handle, CURLOPT_SSL_CTX_FUNCTION, function);
}

/// Sets a blob option (CURLOPT_SSLCERT_BLOB, CURLOPT_SSLKEY_BLOB, ...) from `length` bytes, which libcurl
/// copies (CURL_BLOB_COPY), so they may be temporary. `bytes` NULL clears the option.
static inline CURLcode ccurl_easy_setopt_blob(CURL *handle, CURLoption option, const void *bytes, size_t length) {
    if (bytes == NULL) {
        return curl_easy_setopt(handle, option, (struct curl_blob *)NULL);
    }
    struct curl_blob blob = { (void *)bytes, length, CURL_BLOB_COPY };
    return curl_easy_setopt(handle, option, &blob);
}

/// CURLOPT_SOCKOPTFUNCTION: called with each socket libcurl makes for a connection, before it connects.
static inline CURLcode ccurl_easy_setopt_sockopt_function(CURL *handle,
        int (*function)(void *, curl_socket_t, curlsocktype)) {
    return curl_easy_setopt(handle, CURLOPT_SOCKOPTFUNCTION, function);
}

/// CURLOPT_OPENSOCKETFUNCTION's function: opens the socket as libcurl 7.88 would (`socket(2)` with the address's
/// family, type and protocol), close-on-exec so that a program's child processes never inherit a connection, and
/// counts in `state` (two ints): `state[0]` is the errno of the first `socket` call that failed, `state[1]` how many
/// opened. libcurl reports a connection that could not open a socket as "Couldn't connect to server" with no errno
/// (CURLINFO_OS_ERRNO stays 0): the state is how a transfer tells "too many open files" from a server that refused
/// it, and only when no socket opened at all (libcurl may try an address of each family).
static inline curl_socket_t ccurl_open_socket(void *state, curlsocktype purpose, struct curl_sockaddr *address) {
    (void)purpose;
    curl_socket_t opened = socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
    int *counts = (int *)state;
    if (counts != NULL) {
        if (opened != CURL_SOCKET_BAD) {
            counts[1] += 1;
        } else if (counts[0] == 0) {
            counts[0] = errno;
        }
    }
    return opened;
}

/// Has `handle` open its sockets with `ccurl_open_socket`, counting in `state` (two ints), which must live as long
/// as the handle.
static inline CURLcode ccurl_easy_setopt_open_socket(CURL *handle, int *state) {
    CURLcode result = curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, ccurl_open_socket);
    if (result != CURLE_OK) {
        return result;
    }
    return curl_easy_setopt(handle, CURLOPT_OPENSOCKETDATA, (void *)state);
}

/// CURLOPT_OPENSOCKETFUNCTION with a function of the caller's and its data: the tests see which address libcurl would
/// connect to (a proxy's or the server's), and refuse it.
static inline CURLcode ccurl_easy_setopt_opensocket_function(CURL *handle,
        curl_socket_t (*function)(void *, curlsocktype, struct curl_sockaddr *), void *data) {
    CURLcode result = curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, function);
    if (result != CURLE_OK) {
        return result;
    }
    return curl_easy_setopt(handle, CURLOPT_OPENSOCKETDATA, data);
}

/// CURLOPT_CLOSESOCKETFUNCTION: closes a socket of libcurl's in its place (the function must close it).
static inline CURLcode ccurl_easy_setopt_closesocket_function(CURL *handle, int (*function)(void *, curl_socket_t)) {
    return curl_easy_setopt(handle, CURLOPT_CLOSESOCKETFUNCTION, function);
}

/// CURLOPT_PREREQFUNCTION (libcurl 7.80): called once a request has its connection, new or reused, before a
/// byte of the request is sent, with the connection's remote address and port and its local port.
static inline CURLcode ccurl_easy_setopt_prereq_function(CURL *handle, int (*function)(void *, char *, char *, int, int)) {
    return curl_easy_setopt(handle, CURLOPT_PREREQFUNCTION, function);
}
static const int ccurl_sockopt_ok = CURL_SOCKOPT_OK;
static const int ccurl_prereqfunc_ok = CURL_PREREQFUNC_OK;
static const int ccurl_prereqfunc_abort = CURL_PREREQFUNC_ABORT;

// MARK: curl_easy_getinfo

static inline CURLcode ccurl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode ccurl_easy_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}
static inline CURLcode ccurl_easy_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode ccurl_easy_getinfo_socket(CURL *handle, CURLINFO info, curl_socket_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

/// The OpenSSL `SSL *` of the transfer's connection (CURLINFO_TLS_SSL_PTR), valid while the transfer runs (in its
/// callbacks): NULL when the connection has no TLS, or when libcurl's TLS library is not OpenSSL. CCurl declares no
/// OpenSSL type: the pointer stays a `void *` here.
static inline void *ccurl_openssl_connection(CURL *handle) {
    struct curl_tlssessioninfo *info = NULL;
    if (curl_easy_getinfo(handle, CURLINFO_TLS_SSL_PTR, &info) != CURLE_OK || info == NULL) {
        return NULL;
    }
    return info->backend == CURLSSLBACKEND_OPENSSL ? info->internals : NULL;
}

// MARK: curl_multi_setopt

static inline CURLMcode ccurl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

// MARK: CURLMsg (its `data` member is a union Swift cannot read)

static inline int ccurl_msg_is_done(const CURLMsg *message) {
    return message->msg == CURLMSG_DONE;
}
static inline CURL *ccurl_msg_easy_handle(const CURLMsg *message) {
    return message->easy_handle;
}
static inline CURLcode ccurl_msg_result(const CURLMsg *message) {
    return message->data.result;
}

// MARK: Constants defined as macros

static const size_t ccurl_writefunc_pause = CURL_WRITEFUNC_PAUSE;
static const size_t ccurl_readfunc_pause = CURL_READFUNC_PAUSE;
static const size_t ccurl_readfunc_abort = CURL_READFUNC_ABORT;
static const int ccurl_pause_recv = CURLPAUSE_RECV;
static const int ccurl_pause_send = CURLPAUSE_SEND;
static const int ccurl_pause_all = CURLPAUSE_ALL;
static const int ccurl_pause_cont = CURLPAUSE_CONT;
static const long ccurl_global_all = CURL_GLOBAL_ALL;
static const long ccurl_http_version_1_1 = CURL_HTTP_VERSION_1_1;
static const long ccurl_http_version_2tls = CURL_HTTP_VERSION_2TLS;
static const long ccurl_http_version_2_prior_knowledge = CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE;
static const long ccurl_http_version_2_0 = CURL_HTTP_VERSION_2_0;
static const int ccurl_error_size = CURL_ERROR_SIZE;
static const int ccurl_seekfunc_ok = CURL_SEEKFUNC_OK;
static const int ccurl_seekfunc_cantseek = CURL_SEEKFUNC_CANTSEEK;

/// The libcurl version as 0xXXYYZZ (major, minor, patch).
static inline unsigned int ccurl_version_number(void) { return curl_version_info(CURLVERSION_NOW)->version_num; }

/// The TLS library libcurl was built with, e.g. "OpenSSL/3.0.19"; NULL without TLS.
static inline const char *ccurl_ssl_version(void) { return curl_version_info(CURLVERSION_NOW)->ssl_version; }

/// The libcurl version string, e.g. "libcurl/7.88.1 OpenSSL/3.0.19 …".
static inline const char *ccurl_version(void) { return curl_version(); }

#endif
