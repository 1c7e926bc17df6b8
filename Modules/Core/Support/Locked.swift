#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a pthread mutex: Courier's lock for shared mutable state.
///
/// Why not `Synchronization.Mutex`: on Linux it is a raw futex that ThreadSanitizer cannot see,
/// so every access it protects is reported as a race and the sanitizer run would be noise
/// (docs/architecture.md shows the five-line reproduction). A pthread mutex is intercepted by
/// the sanitizer, costs the same uncontended, and keeps the concurrency suites meaningful.
package struct Locked<Value: Sendable>: @unchecked Sendable {
    // @unchecked: the value is read and written only inside `withLock`, while the mutex is held.
    // A struct around one heap block, so copies share the value and the lock as a class reference would.
    // @usableFromInline so `withLock` inlines and specializes in every module that uses it.
    @usableFromInline let storage: LockedStorage<Value>

    /// A lock around `value`.
    package init(_ value: consuming Value) {
        storage = LockedStorage.make(value)
    }

    /// Runs `body` with exclusive access to the value. Never call back into the same lock.
    @inlinable
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try storage.withUnsafeMutablePointers { mutex, value in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }
}

/// The mutex (header) and the value (the one element) of a ``Locked`` in one heap block: a lock is
/// made for every call (task, control, transfer, pipes), and a separate block for the mutex was one
/// more `malloc` and `free` each time (docs/performance.md, allocations).
///
/// The mutex comes first and the value after it, never the other way round: a zero-sized value would
/// otherwise share its address with the mutex, and ThreadSanitizer would take the value's accesses
/// for unsynchronized writes to the mutex.
@usableFromInline
final class LockedStorage<Value>: ManagedBuffer<pthread_mutex_t, Value> {
    /// `value` is moved into the block, not copied: a task's state is a struct of a dozen references, and a copy
    /// retained each of them only for the caller to release them again.
    static func make(_ value: consuming Value) -> LockedStorage<Value> {
        let buffer = create(minimumCapacity: 1) { _ in pthread_mutex_t() }
        let storage = unsafeDowncast(buffer, to: LockedStorage<Value>.self)
        let element = storage.withUnsafeMutablePointers { mutex, element in
            pthread_mutex_init(mutex, nil)
            return element
        }
        // Outside the closure, which could only copy `value`. The pointer stays valid: `storage` holds the block, and
        // a class instance never moves.
        element.initialize(to: value)
        return storage
    }

    deinit {
        withUnsafeMutablePointers { mutex, element in
            _ = element.deinitialize(count: 1)
            pthread_mutex_destroy(mutex)
        }
    }
}
