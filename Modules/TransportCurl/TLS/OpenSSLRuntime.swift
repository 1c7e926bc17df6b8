internal import CCurl
import Glibc

/// The few OpenSSL functions the handshake hook calls, found at run time in the libssl and libcrypto that
/// libcurl itself loaded.
///
/// Why not link OpenSSL: a consumer of CourierCurl without CourierSecurity must link no OpenSSL code of
/// Courier's (DESIGN.md §1, `Scripts/linkage-test.sh`). libcurl already brought OpenSSL into the process;
/// `dlopen(RTLD_NOLOAD)` only takes a handle on those very libraries (it never loads one), so CourierCurl
/// has no OpenSSL symbol to resolve at link time and no dependency of its own on libssl. The functions
/// are all real functions (no macros) whose signatures are the same in OpenSSL 1.1.1 and 3.x.
///
/// `nil` (see ``shared``) when libcurl does not use OpenSSL or a function is missing: the transport then
/// refuses requests that carry a trust evaluator (it fails closed).
struct OpenSSLRuntime: @unchecked Sendable {
    // @unchecked: immutable after `load()`; every field is a C function pointer (which captures nothing)
    // or an integer.

    typealias VerifyCallback = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Int32
    typealias ExFree = @convention(c) (
        UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, OpaquePointer?, Int32, Int, UnsafeMutableRawPointer?
    ) -> Void

    /// `SSL_CTX_set_cert_verify_callback(SSL_CTX *, int (*)(X509_STORE_CTX *, void *), void *)`
    let setCertVerifyCallback: @convention(c) (OpaquePointer?, VerifyCallback?, UnsafeMutableRawPointer?) -> Void
    /// `SSL_CTX_set_ex_data(SSL_CTX *, int, void *) -> int`
    let setContextExData: @convention(c) (OpaquePointer?, Int32, UnsafeMutableRawPointer?) -> Int32
    /// `SSL_CTX_set_options(SSL_CTX *, uint64_t) -> uint64_t`
    let setContextOptions: @convention(c) (OpaquePointer?, UInt64) -> UInt64
    /// `X509_STORE_CTX_get0_cert(X509_STORE_CTX *) -> X509 *`
    let storeContextCertificate: @convention(c) (OpaquePointer?) -> OpaquePointer?
    /// `X509_STORE_CTX_get0_untrusted(X509_STORE_CTX *) -> STACK_OF(X509) *`
    let storeContextUntrusted: @convention(c) (OpaquePointer?) -> OpaquePointer?
    /// `X509_STORE_CTX_set_error(X509_STORE_CTX *, int)`
    let storeContextSetError: @convention(c) (OpaquePointer?, Int32) -> Void
    /// `OPENSSL_sk_num(const OPENSSL_STACK *) -> int`
    let stackCount: @convention(c) (OpaquePointer?) -> Int32
    /// `OPENSSL_sk_value(const OPENSSL_STACK *, int) -> void *`
    let stackValue: @convention(c) (OpaquePointer?, Int32) -> OpaquePointer?
    /// `i2d_X509(const X509 *, unsigned char **) -> int`
    let encodeCertificate: @convention(c) (OpaquePointer?, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32
    /// The `SSL_CTX` ex-data index that owns a retained ``TrustHook`` (released with the context).
    let hookIndex: Int32

    /// `X509_V_OK` and `X509_V_ERR_APPLICATION_VERIFICATION`.
    static let verified: Int32 = 0
    static let applicationRefused: Int32 = 50
    /// `SSL_OP_NO_RENEGOTIATION`: the verify callback then runs once per connection, in its handshake.
    static let noRenegotiation: UInt64 = 1 << 30

    /// The runtime, looked up once; `nil` when libcurl's TLS is not OpenSSL or a function is missing.
    static let shared: OpenSSLRuntime? = load()

    /// Handles on the libssl and libcrypto that libcurl loaded; `nil` when libcurl's TLS is not OpenSSL.
    static func loadedLibraries() -> (ssl: UnsafeMutableRawPointer, crypto: UnsafeMutableRawPointer)? {
        guard let version = ccurl_ssl_version().map({ String(cString: $0) }), version.hasPrefix("OpenSSL/") else {
            return nil
        }
        // libssl.so.3 for OpenSSL 3.x, libssl.so.1.1 for 1.1.x: the soname libcurl was linked against.
        let number = version.dropFirst("OpenSSL/".count)
        let suffix = number.hasPrefix("1.1") ? "1.1" : String(number.prefix { $0 != "." })
        guard let ssl = dlopen("libssl.so.\(suffix)", RTLD_NOW | RTLD_NOLOAD),
              let crypto = dlopen("libcrypto.so.\(suffix)", RTLD_NOW | RTLD_NOLOAD)
        else { return nil }
        return (ssl, crypto)
    }

    /// The function `name` of `library` as a `type`, or `nil` when the library has none.
    static func symbol<T>(_ library: UnsafeMutableRawPointer, _ name: String, as type: T.Type) -> T? {
        guard let address = dlsym(library, name) else { return nil }
        return unsafeBitCast(address, to: type)
    }

    private static func load() -> OpenSSLRuntime? {
        guard let (ssl, crypto) = loadedLibraries() else { return nil }
        guard
            let setCertVerifyCallback = symbol(ssl, "SSL_CTX_set_cert_verify_callback",
                                               as: (@convention(c) (OpaquePointer?, VerifyCallback?, UnsafeMutableRawPointer?) -> Void).self),
            let setContextExData = symbol(ssl, "SSL_CTX_set_ex_data",
                                          as: (@convention(c) (OpaquePointer?, Int32, UnsafeMutableRawPointer?) -> Int32).self),
            let setContextOptions = symbol(ssl, "SSL_CTX_set_options",
                                           as: (@convention(c) (OpaquePointer?, UInt64) -> UInt64).self),
            let storeContextCertificate = symbol(crypto, "X509_STORE_CTX_get0_cert",
                                                 as: (@convention(c) (OpaquePointer?) -> OpaquePointer?).self),
            let storeContextUntrusted = symbol(crypto, "X509_STORE_CTX_get0_untrusted",
                                               as: (@convention(c) (OpaquePointer?) -> OpaquePointer?).self),
            let storeContextSetError = symbol(crypto, "X509_STORE_CTX_set_error",
                                              as: (@convention(c) (OpaquePointer?, Int32) -> Void).self),
            let stackCount = symbol(crypto, "OPENSSL_sk_num", as: (@convention(c) (OpaquePointer?) -> Int32).self),
            let stackValue = symbol(crypto, "OPENSSL_sk_value",
                                    as: (@convention(c) (OpaquePointer?, Int32) -> OpaquePointer?).self),
            let encodeCertificate = symbol(crypto, "i2d_X509",
                                           as: (@convention(c) (OpaquePointer?, UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32).self),
            let newExIndex = symbol(crypto, "CRYPTO_get_ex_new_index",
                                    as: (@convention(c) (Int32, Int, UnsafeMutableRawPointer?, OpaquePointer?, OpaquePointer?, ExFree?) -> Int32).self)
        else { return nil }

        // CRYPTO_EX_INDEX_SSL_CTX is 1. The free function runs for every SSL_CTX freed in the process;
        // only contexts the hook was installed on hold a pointer at this index.
        let hookIndex = newExIndex(1, 0, nil, nil, nil) { _, pointer, _, _, _, _ in
            TrustHook.releaseFromContext(pointer)
        }
        guard hookIndex >= 0 else { return nil }
        return OpenSSLRuntime(
            setCertVerifyCallback: setCertVerifyCallback, setContextExData: setContextExData,
            setContextOptions: setContextOptions, storeContextCertificate: storeContextCertificate,
            storeContextUntrusted: storeContextUntrusted, storeContextSetError: storeContextSetError,
            stackCount: stackCount, stackValue: stackValue, encodeCertificate: encodeCertificate,
            hookIndex: hookIndex
        )
    }

    /// The certificate in DER.
    func der(of certificate: OpaquePointer) -> [UInt8]? {
        let length = encodeCertificate(certificate, nil)
        guard length > 0 else { return nil }
        return [UInt8](unsafeUninitializedCapacity: Int(length)) { buffer, count in
            var cursor = buffer.baseAddress
            count = Int(max(0, encodeCertificate(certificate, &cursor)))
        }
    }

    /// What the server sent, leaf first, in DER: the verification's target and its untrusted chain.
    func peerChain(_ storeContext: OpaquePointer) -> [[UInt8]] {
        var chain: [[UInt8]] = []
        if let leaf = storeContextCertificate(storeContext), let der = der(of: leaf) {
            chain.append(der)
        }
        if let untrusted = storeContextUntrusted(storeContext) {
            for index in 0..<max(0, stackCount(untrusted)) {
                // OpenSSL's client puts the leaf first in this stack too: keep each certificate once.
                guard let certificate = stackValue(untrusted, index), let der = der(of: certificate),
                      !chain.contains(der) else { continue }
                chain.append(der)
            }
        }
        return chain
    }
}
