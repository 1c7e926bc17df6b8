/// Frees the calling thread's OpenSSL state (`OPENSSL_thread_stop`: its random generators, its error queue),
/// which the curl thread does as its last use of libcurl, before it reports itself stopped.
///
/// Why: OpenSSL frees a thread's state in a thread-specific-data destructor as the thread ends. The curl thread
/// ends just after `shutdown()` has returned, so the program may already be in `exit`: once OpenSSL's exit
/// handler has deleted its key, the destructor never runs and the state leaks (LeakSanitizer found 9–10 KB in 1
/// soak run of 6), and a destructor already running meets a clean-up freeing what it uses. Freed beforehand,
/// nothing of OpenSSL's is left for the thread's end. Integration/ExitProbe holds a thread until after the exit
/// handlers to show it.
enum OpenSSLThreadState {
    /// Frees this thread's OpenSSL state; nothing when libcurl's TLS is not OpenSSL. The thread must make no
    /// further OpenSSL call (one would allocate the state again, to be freed only by the destructor).
    static func release() {
        stop.function?()
    }

    private static let stop = ThreadStop(function: lookUp())

    private static func lookUp() -> (@convention(c) () -> Void)? {
        guard let (_, crypto) = OpenSSLRuntime.loadedLibraries() else { return nil }
        // OpenSSL 1.1.0 and later, with the same signature in 3.x.
        return OpenSSLRuntime.symbol(crypto, "OPENSSL_thread_stop", as: (@convention(c) () -> Void).self)
    }

    /// `@unchecked Sendable`: immutable after the static initializer (which Swift runs once); a C function
    /// pointer captures nothing.
    private struct ThreadStop: @unchecked Sendable {
        let function: (@convention(c) () -> Void)?
    }
}
