#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

/// A value guarded by a `Synchronization.Mutex` stored inside its owner, with no heap block of its own: for an
/// object made on every call (``SessionTask``), where ``Locked``'s block was one `malloc` more per call.
///
/// Why not `Mutex` alone: on Linux its contended path runs inside the Synchronization library, which
/// ThreadSanitizer does not instrument, so the sanitizer misses the ordering the lock gives and reports every
/// access it guards as a race (docs/architecture.md, decision (g)). The lock therefore tells the sanitizer what it
/// does (``SanitizerAnnotations``): it acquires after locking and releases before unlocking, on the lock's own
/// address. Without the sanitizer that is a test of a flag the lock keeps, on each side.
///
/// Noncopyable, because the value lives in the mutex: keep it as a `let` of a class.
package struct InlineLocked<Value: ~Copyable>: ~Copyable, Sendable {
    private let mutex: Mutex<Value>
    /// Whether the program runs under ThreadSanitizer, read once per lock: ``SanitizerAnnotations``' hooks are
    /// globals, whose every read checks that they are initialized.
    private let annotated: Bool

    /// A lock around `value`.
    package init(_ value: consuming sending Value) {
        mutex = Mutex(value)
        annotated = SanitizerAnnotations.areActive
    }

    /// Runs `body` with exclusive access to the value. Never call back into the same lock.
    @inline(__always)
    package borrowing func withLock<Result: ~Copyable>(_ body: (inout sending Value) -> sending Result) -> Result {
        // The lock's own address names it to the sanitizer: the mutex is laid out in place (never moved or copied),
        // so it is the same for every call on one lock.
        withUnsafePointer(to: self) { lock in
            let address = UnsafeMutableRawPointer(mutating: lock)
            return mutex.withLock { value in
                if annotated { SanitizerAnnotations.acquired(address) }
                defer { if annotated { SanitizerAnnotations.releasing(address) } }
                return body(&value)
            }
        }
    }
}

/// ThreadSanitizer's annotations (`__tsan_acquire`, `__tsan_release`), found at run time: present when the
/// program runs with the sanitizer's runtime, absent (and skipped) otherwise, so no build needs a flag of its own.
package enum SanitizerAnnotations {
    private typealias Annotation = @convention(c) (UnsafeMutableRawPointer?) -> Void

    private static let acquire: Annotation? = lookUp("__tsan_acquire")
    private static let release: Annotation? = lookUp("__tsan_release")

    private static func lookUp(_ name: String) -> Annotation? {
        // RTLD_DEFAULT (a null handle): the sanitizer's runtime is linked into the executable.
        dlsym(nil, name).map { unsafeBitCast($0, to: Annotation.self) }
    }

    /// Whether the program runs under ThreadSanitizer.
    package static var areActive: Bool { acquire != nil && release != nil }

    /// Tells the sanitizer that this thread now holds what `address` was released with.
    @inline(__always)
    package static func acquired(_ address: UnsafeMutableRawPointer) {
        acquire?(address)
    }

    /// Tells the sanitizer that this thread's writes so far are published with `address`.
    @inline(__always)
    package static func releasing(_ address: UnsafeMutableRawPointer) {
        release?(address)
    }
}
