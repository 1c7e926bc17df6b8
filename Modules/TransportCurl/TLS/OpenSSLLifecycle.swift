/// Where OpenSSL's process-wide state stands, for the curl thread's end and the program's exit: the functions are
/// looked up at run time in the libcrypto libcurl loaded (see ``OpenSSLRuntime`` for why), and do nothing when
/// libcurl's TLS is not OpenSSL.
enum OpenSSLLifecycle {
    /// Frees the calling thread's OpenSSL state (`OPENSSL_thread_stop`: its random generators, its error queue). The
    /// curl thread does so as its last use of libcurl, before it reports itself stopped.
    ///
    /// Why: OpenSSL frees a thread's state in a thread-specific-data destructor as the thread ends. The curl thread
    /// ends just after `shutdown()` has returned, so the program may already be in `exit`: once OpenSSL's exit
    /// handler has deleted its key, the destructor never runs and the state leaks (LeakSanitizer found 9–10 KB in 1
    /// soak run of 6), and a destructor already running meets a clean-up freeing what it uses. Freed beforehand,
    /// nothing of OpenSSL's is left for the thread's end. Integration/ExitProbe holds a thread until after the exit
    /// handlers to show it.
    ///
    /// The thread must make no further OpenSSL call: one would allocate the state again, to be freed only by the
    /// destructor.
    static func releaseThreadState() {
        functions.threadStop?()
    }

    /// Whether OpenSSL's exit handler (`OPENSSL_cleanup`) has run: after it, no connection may be closed, since
    /// closing a TLS connection calls into OpenSSL. False when libcurl's TLS is not OpenSSL.
    static var hasCleanedUp: Bool {
        // After the clean-up, `OPENSSL_init_crypto` refuses; asked for its base only, it records no error (which
        // would allocate) and does no work when it is not refusing.
        guard let initCrypto = functions.initCrypto else { return false }
        return initCrypto(baseOnly, nil) == 0
    }

    /// `OPENSSL_INIT_BASE_ONLY`.
    private static let baseOnly: UInt64 = 0x0004_0000

    private static let functions = Functions.lookUp()

    /// `@unchecked Sendable`: immutable after the static initializer (which Swift runs once); C function pointers
    /// capture nothing.
    private struct Functions: @unchecked Sendable {
        /// `OPENSSL_thread_stop(void)`, OpenSSL 1.1.0 and later.
        let threadStop: (@convention(c) () -> Void)?
        /// `OPENSSL_init_crypto(uint64_t, const OPENSSL_INIT_SETTINGS *) -> int`, 1.1.0 and later.
        let initCrypto: (@convention(c) (UInt64, UnsafeRawPointer?) -> Int32)?

        static func lookUp() -> Functions {
            guard let (_, crypto) = OpenSSLRuntime.loadedLibraries() else { return Functions(threadStop: nil, initCrypto: nil) }
            return Functions(
                threadStop: OpenSSLRuntime.symbol(crypto, "OPENSSL_thread_stop", as: (@convention(c) () -> Void).self),
                initCrypto: OpenSSLRuntime.symbol(
                    crypto, "OPENSSL_init_crypto", as: (@convention(c) (UInt64, UnsafeRawPointer?) -> Int32).self
                )
            )
        }
    }
}
