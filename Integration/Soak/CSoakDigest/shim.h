// SHA-256 from OpenSSL's libcrypto for the soak, which checks bodies against the hashes the servers publish
// (SHA256SUMS, X-Decoded-SHA256, the upload sink's answer). libcrypto is already loaded by libcurl, so this
// adds no library to the process; EVP_Digest, unlike SHA256(), is not deprecated in OpenSSL 3.
#ifndef COURIER_SOAK_DIGEST_SHIM_H
#define COURIER_SOAK_DIGEST_SHIM_H

#include <openssl/evp.h>

/// Writes the 32-byte SHA-256 of `length` bytes at `bytes` to `digest`; returns 1 on success.
static inline int soak_sha256(const void *bytes, size_t length, unsigned char digest[32]) {
    unsigned int written = 0;
    return EVP_Digest(bytes, length, digest, &written, EVP_sha256(), NULL) == 1 && written == 32;
}

#endif
