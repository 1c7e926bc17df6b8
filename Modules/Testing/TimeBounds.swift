#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Upper bounds for how long a behaviour may take in a test, derived from the limit that governs it, so a
/// test holds on a busy machine and under a sanitizer.
///
/// A test of "fails at the timeout" or "ends promptly" must not assert a bound tighter than the behaviour
/// allows: ThreadSanitizer and AddressSanitizer make the client several times slower, and CI runs the suites
/// with the other core busy (a 2 s bound failed at 2.09 s that way). The defects such a bound exists to catch
/// are hangs and timers that never fire, which miss any of these bounds by far.
///
/// ```swift
/// let timeouts = Timeouts(request: .milliseconds(500))
/// // ... the call fails with .timedOut ...
/// #expect(elapsed >= .milliseconds(450) && elapsed < TimeBounds.limit(timeouts.request!))
/// ```
public enum TimeBounds {
    /// True when the process runs under a sanitizer: Scripts/test.sh sets `COURIER_SANITIZER` (`thread` or
    /// `address`) for those runs.
    public static let isSanitized: Bool = getenv("COURIER_SANITIZER") != nil

    /// How many times slower than a quiet, plain build this run may be: 2 plain (a busy machine), 5 under a
    /// sanitizer.
    public static let slowdown: Int = isSanitized ? 5 : 2

    /// The bound for a behaviour governed by `limit` (a timeout, a server's delay, a polling interval):
    /// `limit` × ``slowdown`` + `slack`. The slack is 10 s by default: under ThreadSanitizer, as some 270 integration
    /// tests start at once, a 500 ms timeout measured more than 6 s (a clean-clone run, 2026-12-06), past the 3 s
    /// slack of before.
    public static func limit(_ limit: Duration, slack: Duration = .seconds(10)) -> Duration {
        limit * slowdown + slack
    }

    /// The bound for a behaviour that no timer governs and should take milliseconds (a refused connection, a
    /// cancellation taking effect): 1 s × ``slowdown``. Keep what it guards against (a server delay, a timeout)
    /// longer than 5 s, so a sanitized run still tells the two apart.
    public static var prompt: Duration { .seconds(1) * slowdown }
}
