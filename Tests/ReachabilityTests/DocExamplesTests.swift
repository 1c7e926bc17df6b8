import Courier
import Foundation
import Testing

extension LiveReachabilityTests {
    /// The Swift examples of docs/reachability.md, verbatim (Scripts/check-doc-examples.py checks that
    /// each one appears here). They ask this machine's kernel and send nothing.
    @Suite struct ReachabilityDocExamplesTests {
        @Test func aMonitor() async throws {
            let monitor = ReachabilityMonitor(target: .anyNetwork)
            monitor.onChange { status in
                print(status)                      // e.g. "reachable via wired (eth0)"
            }
            try monitor.start()
            #expect(await eventually { monitor.status != .unknown })
            monitor.stop()
        }

        @Test func updatesAsAStream() async throws {
            let localhost = ReachabilityMonitor(target: .host("localhost"))
            try localhost.start()
            for await status in localhost.updates() {
                print(status.afNetworkingStatus)   // "Reachable via WiFi"
                break
            }
            localhost.stop()
            try localhost.start()
            var first = localhost.updates().makeAsyncIterator()
            #expect(await first.next()?.afNetworkingStatus.description == "Reachable via WiFi")
            localhost.stop()
        }

        @Test func inASession() async throws {
            let network = ReachabilityMonitor(target: .anyNetwork)
            try network.start()
            let configuration = SessionConfiguration(
                interceptors: [ReachabilityInterceptor(monitor: network, maximumWait: .seconds(10))],
                retrier: OfflineRetrier(monitor: network, maximumWait: .seconds(10), fallback: RetryPolicy())
            )
            let session = Session(configuration: configuration, transport: try CurlTransport())
            #expect(session.configuration.interceptors.count == 1)
            network.stop()
        }

        @Test func notifications() async throws {
            let seen = Locked(0)
            let token = NotificationCenter.default.addObserver(forName: .courierReachabilityDidChange, object: nil, queue: nil) { _ in
                seen.withLock { $0 += 1 }
            }
            defer { NotificationCenter.default.removeObserver(token) }
            let observed = ReachabilityMonitor(target: .address(IPAddress("127.0.0.1")!))
            observed.postNotifications()           // on NotificationCenter.default, from the monitor's thread
            try observed.start()
            #expect(await eventually { seen.withLock { $0 } >= 1 })
            observed.stop()
        }
    }
}
