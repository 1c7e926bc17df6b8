import CourierCore
import CourierTesting
import Foundation
import HTTPTypes
import Testing
@testable import CourierReachability

extension LiveReachabilityTests {
    /// ReachabilityInterceptor and OfflineRetrier in a session over MockTransport, with a monitor on
    /// a scripted kernel whose network comes back when the test says so.
    @Suite struct SessionIntegrationTests {
        let address = IPAddress("198.51.100.7")!
        let request = HTTPRequest(method: .get, scheme: "http", authority: "198.51.100.7", path: "/get")

        /// A started monitor that says not reachable until `restore` is called.
        func offlineMonitor() async throws -> (ReachabilityMonitor, restore: @Sendable () -> Void) {
            let kernel = FakeKernel()
            let monitor = fakeMonitor(kernel)
            try monitor.start()
            #expect(await eventually { monitor.status == .notReachable })
            let address = self.address
            return (monitor, {
                kernel.set { $0.lookups[address] = .route(FakeKernel.route(via: 2)) }
                monitor.refresh()
            })
        }

        func restore(after delay: Duration, _ restore: @escaping @Sendable () -> Void) {
            Task {
                try await Task.sleep(for: delay)
                restore()
            }
        }

        @Test func interceptorHoldsTheRequestUntilTheNetworkReturns() async throws {
            let (monitor, restore) = try await offlineMonitor()
            defer { monitor.stop() }
            let transport = MockTransport(always: .text("ok"))
            let session = Session(
                configuration: SessionConfiguration(interceptors: [ReachabilityInterceptor(monitor: monitor, maximumWait: .seconds(5))]),
                transport: transport
            )
            self.restore(after: .milliseconds(200), restore)
            let started = ContinuousClock.now
            let response = try await session.data(for: request)
            #expect(response.text == "ok")
            #expect(ContinuousClock.now - started >= .milliseconds(200))
            #expect(transport.requests.count == 1)
        }

        @Test func interceptorFailsWithATypedErrorWhenTheWaitRunsOut() async throws {
            let (monitor, _) = try await offlineMonitor()
            defer { monitor.stop() }
            let transport = MockTransport(always: .text("ok"))
            let session = Session(
                configuration: SessionConfiguration(interceptors: [ReachabilityInterceptor(monitor: monitor, maximumWait: .milliseconds(200))]),
                transport: transport
            )
            let started = ContinuousClock.now
            let error = await #expect(throws: CourierError.self) { try await session.data(for: request) }
            let elapsed = ContinuousClock.now - started
            #expect(elapsed >= .milliseconds(200) && elapsed < TimeBounds.limit(.milliseconds(200)))
            let reason = try #require(error?.underlyingError as? ReachabilityError)
            #expect(reason.reason == .notReachable && reason.target == .address(address))
            #expect(error?.stage == .interceptor(ReachabilityInterceptor.self))
            #expect(transport.requests.isEmpty)
        }

        @Test func interceptorCanSendAnyway() async throws {
            let (monitor, _) = try await offlineMonitor()
            defer { monitor.stop() }
            let transport = MockTransport(always: .text("ok"))
            let interceptor = ReachabilityInterceptor(monitor: monitor, maximumWait: .milliseconds(100), whenStillUnreachable: .send)
            let session = Session(configuration: SessionConfiguration(interceptors: [interceptor]), transport: transport)
            #expect(try await session.data(for: request).text == "ok")
            #expect(transport.requests.count == 1)
        }

        @Test func interceptorDoesNotHoldBackWhenReachableOrUnknown() async throws {
            let stopped = fakeMonitor(FakeKernel())  // never started: unknown
            let transport = MockTransport(always: .text("ok"))
            let session = Session(
                configuration: SessionConfiguration(interceptors: [ReachabilityInterceptor(monitor: stopped, maximumWait: .seconds(30))]),
                transport: transport
            )
            let started = ContinuousClock.now
            #expect(try await session.data(for: request).text == "ok")
            #expect(ContinuousClock.now - started < TimeBounds.prompt)
        }

        @Test func cancellingTheCallEndsTheWait() async throws {
            let (monitor, _) = try await offlineMonitor()
            defer { monitor.stop() }
            let session = Session(
                configuration: SessionConfiguration(interceptors: [ReachabilityInterceptor(monitor: monitor, maximumWait: .seconds(30))]),
                transport: MockTransport(always: .text("ok"))
            )
            let request = self.request
            let call = Task { try await session.data(for: request) }
            try await Task.sleep(for: .milliseconds(100))
            let started = ContinuousClock.now
            call.cancel()
            let error = await #expect(throws: CourierError.self) { try await call.value }
            #expect(error?.isCancellation == true)
            #expect(ContinuousClock.now - started < TimeBounds.prompt)
        }

        @Test func offlineRetrierRetriesOnceTheNetworkReturns() async throws {
            let (monitor, restore) = try await offlineMonitor()
            defer { monitor.stop() }
            let offline = TransportError(.cannotConnect, message: "Network is unreachable")
            let transport = MockTransport(sequence: [.failure(offline), .text("ok")])
            let session = Session(
                configuration: SessionConfiguration(retrier: OfflineRetrier(monitor: monitor, maximumWait: .seconds(5))),
                transport: transport
            )
            self.restore(after: .milliseconds(200), restore)
            let started = ContinuousClock.now
            #expect(try await session.data(for: request).text == "ok")
            #expect(ContinuousClock.now - started >= .milliseconds(200))
            #expect(transport.requests.count == 2)
        }

        @Test func offlineRetrierGivesUpAfterItsWait() async throws {
            let (monitor, _) = try await offlineMonitor()
            defer { monitor.stop() }
            let offline = TransportError(.cannotConnect, message: "Network is unreachable")
            let transport = MockTransport(always: .failure(offline))
            let session = Session(
                configuration: SessionConfiguration(retrier: OfflineRetrier(monitor: monitor, maximumWait: .milliseconds(200))),
                transport: transport
            )
            let started = ContinuousClock.now
            let error = await #expect(throws: CourierError.self) { try await session.data(for: request) }
            #expect((error?.underlyingError as? TransportError)?.code == .cannotConnect)
            let elapsed = ContinuousClock.now - started
            #expect(elapsed >= .milliseconds(200) && elapsed < TimeBounds.limit(.milliseconds(200)))
            #expect(transport.requests.count == 1)
        }

        @Test func offlineRetrierLeavesOtherFailuresToItsFallback() async throws {
            let kernel = FakeKernel()
            kernel.set { $0.lookups[IPAddress("198.51.100.7")!] = .route(FakeKernel.route(via: 2)) }
            let monitor = fakeMonitor(kernel)
            try monitor.start()
            defer { monitor.stop() }
            #expect(await eventually { monitor.isReachable })
            let retrier = OfflineRetrier(monitor: monitor)
            let refused = RetryAttempt(
                request: request, number: 1, response: nil,
                error: CourierError(stage: .transport, underlyingError: TransportError(.cannotConnect, message: "Connection refused"))
            )
            // Reachable all along: a refused connection is the server's problem, not the network's.
            #expect(await retrier.decision(for: refused) == .doNotRetry)
            let unavailable = RetryAttempt(request: request, number: 1, response: HTTPResponse(status: .serviceUnavailable), error: nil)
            #expect(await retrier.decision(for: unavailable) == .doNotRetry)
            let withFallback = OfflineRetrier(monitor: monitor, fallback: RetryPolicy(exponentialBackoffScale: 0.001))
            #expect(await withFallback.decision(for: unavailable) == .retry(after: .milliseconds(1)))
        }

        @Test func offlineRetrierRetriesRightAfterAnOutageAndRespectsItsLimit() async throws {
            let (monitor, restore) = try await offlineMonitor()
            defer { monitor.stop() }
            restore()
            #expect(await eventually { monitor.isReachable })
            let retrier = OfflineRetrier(monitor: monitor, maximumWait: .seconds(5), retryLimit: 1)
            func attempt(_ number: Int, _ code: TransportError.Code = .nameResolution) -> RetryAttempt {
                RetryAttempt(request: request, number: number, response: nil,
                             error: CourierError(stage: .transport, underlyingError: TransportError(code, message: "x")))
            }
            // The outage ended a moment ago: the failure is taken as the outage's.
            #expect(await retrier.decision(for: attempt(1)) == .retry(after: .zero))
            #expect(await retrier.decision(for: attempt(2)) == .doNotRetry)
            #expect(await retrier.decision(for: attempt(1, .tlsFailure)) == .doNotRetry)
        }
    }
}
