// Typed wrappers around OpenSSL's libcrypto for Swift, which cannot import function-like macros
// (the STACK_OF(X509) accessors, OPENSSL_free) and sees a few constants only through them.
// Only CourierSecurity imports this module, with `internal import`: OpenSSL never shows in public API, and
// a consumer that does not depend on CourierSecurity links none of this.
#ifndef COURIER_COPENSSL_SHIM_H
#define COURIER_COPENSSL_SHIM_H

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

// MARK: STACK_OF(X509)

static inline STACK_OF(X509) *copenssl_sk_X509_new_null(void) { return sk_X509_new_null(); }
static inline int copenssl_sk_X509_push(STACK_OF(X509) *stack, X509 *certificate) {
    return sk_X509_push(stack, certificate);
}
static inline int copenssl_sk_X509_num(const STACK_OF(X509) *stack) { return sk_X509_num(stack); }
static inline X509 *copenssl_sk_X509_value(const STACK_OF(X509) *stack, int index) {
    return sk_X509_value(stack, index);
}
/// Frees the stack and every certificate in it (for X509_STORE_CTX_get1_chain's copy).
static inline void copenssl_sk_X509_pop_free(STACK_OF(X509) *stack) { sk_X509_pop_free(stack, X509_free); }
/// Frees the stack only: the certificates in it stay their owners'.
static inline void copenssl_sk_X509_free(STACK_OF(X509) *stack) { sk_X509_free(stack); }

// MARK: Memory

static inline void copenssl_free(void *pointer) { OPENSSL_free(pointer); }

/// A read-only memory BIO over `length` bytes (the bytes must outlive it).
static inline BIO *copenssl_bio_from_bytes(const void *bytes, int length) { return BIO_new_mem_buf(bytes, length); }

// MARK: Errors

/// The reason of the oldest error on the thread's queue, or 0; the queue is emptied.
static inline int copenssl_take_error_reason(void) {
    unsigned long code = ERR_peek_error();
    int reason = code == 0 ? 0 : ERR_GET_REASON(code);
    ERR_clear_error();
    return reason;
}

// MARK: Constants defined as macros

static const unsigned long copenssl_flag_partial_chain = X509_V_FLAG_PARTIAL_CHAIN;
static const unsigned int copenssl_check_flag_no_partial_wildcards = X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS;
static const unsigned int copenssl_check_flag_never_check_subject = X509_CHECK_FLAG_NEVER_CHECK_SUBJECT;
static const int copenssl_v_ok = X509_V_OK;
static const int copenssl_v_err_hostname_mismatch = X509_V_ERR_HOSTNAME_MISMATCH;
static const int copenssl_v_err_ip_address_mismatch = X509_V_ERR_IP_ADDRESS_MISMATCH;

#endif
