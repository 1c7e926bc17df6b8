@testable import CourierCore
import Foundation
import Testing

@Suite("Locked")
struct LockedTests {
    final class Counted: Sendable {
        static let live = Locked(0)
        init() { Self.live.withLock { $0 += 1 } }
        deinit { Self.live.withLock { $0 -= 1 } }
    }

    /// Value and mutex share one block; many threads at once (ThreadSanitizer runs this suite too) must
    /// see every increment.
    @Test func threadsSeeEachOthersWrites() {
        let counter = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<1_000 { counter.withLock { $0 += 1 } }
        }
        #expect(counter.withLock { $0 } == 8_000)
    }

    /// A zero-sized value sits after the mutex, never on it.
    @Test func aZeroSizedValueIsLockedToo() {
        let lock = Locked(())
        let hits = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<500 { lock.withLock { _ in hits.withLock { $0 += 1 } } }
        }
        #expect(hits.withLock { $0 } == 2_000)
    }

    @Test func copiesShareTheValue() {
        let one = Locked([1])
        let two = one
        two.withLock { $0.append(2) }
        #expect(one.withLock { $0 } == [1, 2])
    }

    @Test func theValueIsReleasedWithTheLock() {
        let before = Counted.live.withLock { $0 }
        do {
            let lock = Locked([Counted(), Counted()])
            #expect(lock.withLock { $0.count } == 2)
        }
        #expect(Counted.live.withLock { $0 } == before)
    }
}
