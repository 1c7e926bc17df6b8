import CourierCore
import Dispatch
import Foundation
import Testing
@testable import CourierReachability
import CourierTesting

extension LiveReachabilityTests {
    /// The monitor against this machine's real kernel (read-only questions: nothing is sent) and
    /// against a scripted one. Checklist H, item 115, without the notification (see
    /// NotificationBridgeTests).
    @Suite struct MonitorTests {
        @Test func localhostBecomesReachableViaLoopbackPromptly() async throws {
            for target in [ReachabilityTarget.host("localhost"), .address(IPAddress("127.0.0.1")!)] {
                let monitor = ReachabilityMonitor(target: target)
                #expect(monitor.status == .unknown)
                let recorder = StatusRecorder()
                monitor.onChange { recorder.record($0) }
                let started = ContinuousClock.now
                try monitor.start()
                #expect(await eventually { recorder.count == 1 })
                let elapsed = ContinuousClock.now - started
                #expect(elapsed < TimeBounds.prompt, "first status after \(elapsed)")
                #expect(recorder.statuses.first?.interfaceKind == .loopback)
                #expect(recorder.statuses.first?.interfaceName == "lo")
                #expect(monitor.isReachable && monitor.status.afNetworkingStatus == .reachableViaWiFi)
                monitor.stop()
                #expect(monitor.status == .unknown)
            }
        }

        @Test func anyNetworkFollowsTheDefaultRoute() async throws {
            let monitor = ReachabilityMonitor(target: .anyNetwork)
            let recorder = StatusRecorder()
            monitor.onChange { recorder.record($0) }
            try monitor.start()
            defer { monitor.stop() }
            #expect(await eventually { recorder.count == 1 })
            #expect(monitor.isReachable == ProcessResources.hasDefaultRoute(), "status \(monitor.status)")
            #expect(monitor.status.interfaceKind != .loopback)
        }

        @Test func startTwiceRegistersOnceAndStopTwiceIsHarmless() async throws {
            let before = (ProcessResources.monitorDescriptors(), ProcessResources.monitorThreads())
            let monitor = ReachabilityMonitor(target: .address(IPAddress("127.0.0.1")!))
            let recorder = StatusRecorder()
            monitor.onChange { recorder.record($0) }
            try monitor.start()
            try monitor.start()
            #expect(await eventually { recorder.count >= 1 })
            try await Task.sleep(for: .milliseconds(100))
            #expect(recorder.count == 1)
            let running = (ProcessResources.monitorDescriptors(), ProcessResources.monitorThreads())
            let opened = running.0.subtracting(before.0)
        #expect(opened.filter { $0.contains("socket:") }.count == 2, "two netlink sockets: \(opened)")
        #expect(opened.contains { $0.contains("eventfd") }, "an eventfd: \(opened)")
            #expect(running.1.subtracting(before.1).count == 1, "one thread")
            monitor.stop()
            monitor.stop()
            let after = (ProcessResources.monitorDescriptors(), ProcessResources.monitorThreads())
            #expect(after.0.intersection(running.0.subtracting(before.0)).isEmpty, "descriptors left open")
            #expect(after.1.intersection(running.1.subtracting(before.1)).isEmpty, "thread still running")
            // A new start delivers its first status again, as AFNetworking's startMonitoring does.
            try monitor.start()
            #expect(await eventually { recorder.count == 2 })
            monitor.stop()
        }

        @Test func nothingIsDeliveredAfterStop() async throws {
            let kernel = FakeKernel()
            let monitor = fakeMonitor(kernel)
            let recorder = StatusRecorder()
            monitor.onChange { recorder.record($0) }
            try monitor.start()
            #expect(await eventually { recorder.statuses == [.notReachable] })
            kernel.set { $0.lookups[IPAddress("198.51.100.7")!] = .route(FakeKernel.route(via: 2)) }
            monitor.refresh()
            #expect(await eventually { recorder.count == 2 })
            #expect(recorder.statuses.last == .reachable(via: .wired, interface: "eth0"))
            monitor.stop()
            kernel.set { $0.lookups = [:] }
            monitor.refresh()
            try await Task.sleep(for: .milliseconds(150))
            #expect(recorder.count == 2)
            #expect(monitor.status == .unknown)
        }

        @Test func unchangedStatusesAreNotRepeated() async throws {
            let kernel = FakeKernel()
            let monitor = fakeMonitor(kernel)
            let recorder = StatusRecorder()
            monitor.onChange { recorder.record($0) }
            try monitor.start()
            defer { monitor.stop() }
            #expect(await eventually { recorder.count == 1 })
            for _ in 0..<3 { monitor.refresh() }
            try await Task.sleep(for: .milliseconds(100))
            #expect(recorder.count == 1)
        }

        @Test func stopFromAHandlerDoesNotDeadlock() async throws {
            let monitor = ReachabilityMonitor(target: .address(IPAddress("127.0.0.1")!))
            let before = ProcessResources.monitorThreads()
            let recorder = StatusRecorder()
            monitor.onChange { [weak monitor] status in
                recorder.record(status)
                monitor?.stop()
            }
            try monitor.start()
            #expect(await eventually { recorder.count == 1 && !monitor.isRunning })
            #expect(await eventually { ProcessResources.monitorThreads().subtracting(before).isEmpty })
            try await Task.sleep(for: .milliseconds(50))
            #expect(recorder.count == 1)
        }

        @Test func handlersRunOnTheGivenQueue() async throws {
            let queue = DispatchQueue(label: "courier.test.reachability")
            let monitor = ReachabilityMonitor(target: .address(IPAddress("127.0.0.1")!), queue: queue)
            let onQueue = Locked<Bool?>(nil)
            monitor.onChange { _ in
                dispatchPrecondition(condition: .onQueue(queue))
                onQueue.withLock { $0 = true }
            }
            try monitor.start()
            defer { monitor.stop() }
            #expect(await eventually { onQueue.withLock { $0 } == true })
        }

        @Test func cancelledObservationsHearNothing() async throws {
            let kernel = FakeKernel()
            let monitor = fakeMonitor(kernel)
            let kept = StatusRecorder(), cancelled = StatusRecorder()
            monitor.onChange { kept.record($0) }
            let observation = monitor.onChange { cancelled.record($0) }
            observation.cancel()
            observation.cancel()
            try monitor.start()
            defer { monitor.stop() }
            #expect(await eventually { kept.count == 1 })
            #expect(cancelled.count == 0)
        }

        @Test func updatesStreamStartsWithTheCurrentStatus() async throws {
            let kernel = FakeKernel()
            let monitor = fakeMonitor(kernel)
            let early = monitor.updates()
            try monitor.start()
            defer { monitor.stop() }
            #expect(await eventually { monitor.status == .notReachable })
            let late = monitor.updates()
            var lateIterator = late.makeAsyncIterator()
            #expect(await lateIterator.next() == .notReachable)
            kernel.set { $0.lookups[IPAddress("198.51.100.7")!] = .route(FakeKernel.route(via: 2)) }
            monitor.refresh()
            #expect(await lateIterator.next() == .reachable(via: .wired, interface: "eth0"))
            var earlyIterator = early.makeAsyncIterator()
            #expect(await earlyIterator.next() == .notReachable)
            #expect(await earlyIterator.next() == .reachable(via: .wired, interface: "eth0"))
        }

        @Test func waitUntilReachable() async throws {
            let kernel = FakeKernel()
            let monitor = fakeMonitor(kernel)
            #expect(await monitor.waitUntilReachable(timeout: .seconds(5)) == false, "a stopped monitor does not wait")
            try monitor.start()
            defer { monitor.stop() }
            #expect(await eventually { monitor.status == .notReachable })
            let started = ContinuousClock.now
            #expect(await monitor.waitUntilReachable(timeout: .milliseconds(150)) == false)
            #expect(ContinuousClock.now - started >= .milliseconds(150))
            Task {
                try await Task.sleep(for: .milliseconds(100))
                kernel.set { $0.lookups[IPAddress("198.51.100.7")!] = .route(FakeKernel.route(via: 2)) }
                monitor.refresh()
            }
            #expect(await monitor.waitUntilReachable(timeout: .seconds(5)))
            #expect(monitor.wasNotReachable(within: .seconds(5)))
            #expect(!monitor.wasNotReachable(within: .zero))
        }

        @Test func monitorsAreReleasedWithTheirThreads() async throws {
            let before = (ProcessResources.monitorDescriptors(), ProcessResources.monitorThreads())
            do {
                let monitor = ReachabilityMonitor(target: .address(IPAddress("127.0.0.1")!))
                try monitor.start()
                #expect(await eventually { monitor.isReachable })
            }
            #expect(await eventually {
                ProcessResources.monitorThreads().subtracting(before.1).isEmpty
                    && ProcessResources.monitorDescriptors().subtracting(before.0).isEmpty
            })
        }
    }
}
