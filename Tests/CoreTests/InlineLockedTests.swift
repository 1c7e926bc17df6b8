@testable import CourierCore
import Dispatch
import FoundationEssentials
import Testing

/// `InlineLocked` is a `Mutex` that tells ThreadSanitizer what it does. Under the sanitizer (`Scripts/test.sh` runs
/// this suite with `COURIER_SANITIZER=thread` and `halt_on_error=1`), the contended test reports a race if the
/// annotations are missing; on its own it checks that no update is lost.
@Suite("Inline lock")
struct InlineLockedTests {
    final class Owner: Sendable {
        let state = InlineLocked<[Int]>([])
    }

    @Test func contendedUpdatesAreAllKept() {
        let owner = Owner()
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for step in 0..<5_000 {
                owner.state.withLock { $0.append(worker * 10_000 + step) }
            }
        }
        let values = owner.state.withLock { $0 }
        #expect(values.count == 40_000)
        #expect(Set(values).count == 40_000)
    }

    /// The annotations are found exactly when the program runs under ThreadSanitizer, so the test above means
    /// what it says in the sanitizer's run.
    @Test func theSanitizersAnnotationsAreFoundUnderTheSanitizer() {
        let underThreadSanitizer = ProcessInfo.processInfo.environment["COURIER_SANITIZER"] == "thread"
        #expect(SanitizerAnnotations.areActive == underThreadSanitizer)
    }
}
