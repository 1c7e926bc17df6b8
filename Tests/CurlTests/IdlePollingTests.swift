@testable import CourierCurl
import Testing

@Suite("Idle polling")
struct IdlePollingTests {
    private let maximum: Duration = .microseconds(200)

    @Test func pollingStartsOffAndGrowsFromTheStartWhenAnEventCameSoonAfter() {
        var polling = IdlePolling(maximum: maximum)
        #expect(polling.window == .zero, "a new transport sleeps at once until polling has paid off")
        polling.record(idle: .microseconds(30))
        #expect(polling.window == IdlePolling.growStart)
        polling.record(idle: .microseconds(30))
        #expect(polling.window == IdlePolling.growStart * 2)
        polling.record(idle: .microseconds(30))
        #expect(polling.window == IdlePolling.growStart * 4, "still after the window: doubled again")
    }

    @Test func theWindowNeverPassesTheMaximum() {
        var polling = IdlePolling(maximum: maximum)
        for _ in 0..<20 { polling.record(idle: maximum) }
        #expect(polling.window == maximum)
    }

    @Test func anEventTheWindowCaughtLeavesItAsItIs() {
        var polling = IdlePolling(maximum: maximum)
        for _ in 0..<3 { polling.record(idle: .microseconds(150)) }
        let window = polling.window
        #expect(window == IdlePolling.growStart * 4)
        polling.record(idle: .microseconds(5))
        polling.record(idle: window)
        #expect(polling.window == window)
    }

    /// An idle transport, or one waiting on slow servers, soon stops polling: each stretch longer than the
    /// maximum halves the window, and a window below the start is none.
    @Test func longIdleStretchesShrinkTheWindowToNothing() {
        var polling = IdlePolling(maximum: maximum)
        for _ in 0..<20 { polling.record(idle: maximum) }
        var windows: [Duration] = []
        for _ in 0..<6 {
            polling.record(idle: .seconds(1))
            windows.append(polling.window)
        }
        #expect(windows == [.microseconds(100), .microseconds(50), .microseconds(25), .microseconds(12.5), .zero, .zero])
        polling.record(idle: .microseconds(40))
        #expect(polling.window == IdlePolling.growStart, "polling comes back once events come soon again")
    }

    @Test func aZeroMaximumNeverPolls() {
        var polling = IdlePolling(maximum: .zero)
        for idle in [Duration.microseconds(1), .microseconds(100), .seconds(1)] { polling.record(idle: idle) }
        #expect(polling.window == .zero)
        #expect(IdlePolling(maximum: .microseconds(-5)).maximum == .zero, "a negative maximum is none")
    }
}
