#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a pthread mutex: Courier's lock for shared mutable state. Copies share the
/// same value and lock.
///
/// Why not `Synchronization.Mutex`: on Linux it is a raw futex that ThreadSanitizer cannot see,
/// so every access it protects is reported as a race and the sanitizer run would be noise
/// (docs/architecture.md shows the five-line reproduction). A pthread mutex is intercepted by
/// the sanitizer and costs the same uncontended. Value and mutex share one allocation.
package struct Locked<Value: Sendable>: @unchecked Sendable {
    // @unchecked: the value is read and written only inside `withLock`, with the mutex held.
    @usableFromInline let storage: LockedStorage<Value>

    /// A lock around `value`.
    package init(_ value: Value) {
        let buffer = LockedStorage<Value>.create(minimumCapacity: 1) { _ in value }
        storage = unsafeDowncast(buffer, to: LockedStorage<Value>.self)
        storage.withUnsafeMutablePointerToElements { mutex in
            mutex.initialize(to: pthread_mutex_t())
            pthread_mutex_init(mutex, nil)
        }
    }

    /// Runs `body` with exclusive access to the value. Never call back into the same lock.
    @inlinable
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try storage.withUnsafeMutablePointers { value, mutex in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }
}

/// The value (header) and its mutex (the one element) in one heap block.
@usableFromInline
final class LockedStorage<Value>: ManagedBuffer<Value, pthread_mutex_t> {
    deinit {
        withUnsafeMutablePointerToElements { mutex in
            pthread_mutex_destroy(mutex)
            mutex.deinitialize(count: 1)
        }
    }
}
