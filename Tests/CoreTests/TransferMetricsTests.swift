@testable import CourierCore
import Testing

@Suite("Transfer metrics")
struct TransferMetricsTests {
    @Test(arguments: [
        Duration?.none, .zero, .microseconds(1), .microseconds(123_456), .milliseconds(-5), .seconds(86_400 * 365),
        .nanoseconds(Int64.max), .nanoseconds(Int64.min + 1),
    ])
    func durationsComeBackAsGiven(duration: Duration?) {
        var metrics = TransferMetrics(domainLookup: duration, total: duration)
        #expect(metrics.domainLookup == duration)
        #expect(metrics.total == duration)
        #expect(metrics.connect == nil && metrics.secureConnection == nil && metrics.requestSent == nil && metrics.firstByte == nil)
        metrics.firstByte = duration
        metrics.domainLookup = nil
        #expect(metrics.firstByte == duration)
        #expect(metrics.domainLookup == nil)
    }

    /// Below the nanosecond a duration is cut toward zero; beyond ±292 years it is held at the largest that is kept,
    /// never turned into "absent" or into the other sign.
    @Test func durationsBeyondWhatIsKeptAreHeldAtItsEdges() {
        #expect(TransferMetrics(total: .nanoseconds(1) + Duration(secondsComponent: 0, attosecondsComponent: 999_999_999)).total == .nanoseconds(1))
        #expect(TransferMetrics(total: .seconds(Int64.max)).total == .nanoseconds(Int64.max))
        #expect(TransferMetrics(total: .seconds(Int64.min)).total == .nanoseconds(Int64.min + 1))
        #expect(TransferMetrics(total: .nanoseconds(Int64.min)).total == .nanoseconds(Int64.min + 1))
    }

    @Test func metricsAreEqualAndHashAsTheirValues() {
        let one = TransferMetrics(connect: .microseconds(10), total: .microseconds(900), bytesReceived: 600,
                                  httpVersion: "HTTP/1.1", remoteAddress: "127.0.0.1:80", reusedConnection: false)
        var two = TransferMetrics(connect: .microseconds(10), bytesReceived: 600, httpVersion: "HTTP/1.1",
                                  remoteAddress: "127.0.0.1:80", reusedConnection: false)
        #expect(one != two)
        two.total = .microseconds(900)
        #expect(one == two)
        #expect(Set([one, two]).count == 1)
        two.connect = nil
        #expect(one != two)
        #expect(MemoryLayout<TransferMetrics>.size < 100)
    }

    /// A transport's microseconds make the same metrics as the public initializer's durations.
    @Test func microsecondsMakeTheSameMetricsAsDurations() {
        let fromMicroseconds = TransferMetrics(
            microseconds: (domainLookup: nil, connect: 12, secureConnection: 0, requestSent: 40, firstByte: -1, total: 1_234_567),
            bytesSent: 3, bytesReceived: 600, httpVersion: "HTTP/2", remoteAddress: "[::1]:443", reusedConnection: true
        )
        let fromDurations = TransferMetrics(
            connect: .microseconds(12), secureConnection: .zero, requestSent: .microseconds(40), total: .microseconds(1_234_567),
            bytesSent: 3, bytesReceived: 600, httpVersion: "HTTP/2", remoteAddress: "[::1]:443", reusedConnection: true
        )
        #expect(fromMicroseconds == fromDurations)
        #expect(TransferMetrics(microseconds: (nil, nil, nil, nil, nil, Int64.max), bytesSent: 0, bytesReceived: 0,
                                httpVersion: nil, remoteAddress: nil, reusedConnection: nil).total == .nanoseconds(Int64.max))
    }
}
