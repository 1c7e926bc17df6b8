import Courier
import CourierCore
import Foundation
import Testing
@testable import CourierReachability

extension LiveReachabilityTests {
    /// Checklist H, item 115: AFNetworking's manager() and manager(domain: "localhost"), observed
    /// through the NotificationCenter bridge of the umbrella module.
    @Suite struct ReachabilityNotificationTests {
        struct Seen: Sendable {
            var afStatus: Int?
            var status: ReachabilityStatus?
            var objectIsMonitor = false
        }

        @Test func namesAndKeysAreAFNetworkings() {
            #expect(Notification.Name.courierReachabilityDidChange.rawValue == "com.alamofire.networking.reachability.change")
            #expect(CourierNotificationKey.reachabilityStatus == "AFNetworkingReachabilityNotificationStatusItem")
        }

        @Test(arguments: [ReachabilityTarget.anyNetwork, .host("localhost")])
        func startPostsTheStatusAndStopEndsIt(target: ReachabilityTarget) async throws {
            let center = NotificationCenter()
            let monitor = ReachabilityMonitor(target: target)
            #expect(monitor.status == .unknown)
            let seen = Locked<[Seen]>([])
            let token = center.addObserver(forName: .courierReachabilityDidChange, object: nil, queue: nil) { [weak monitor] note in
                let entry = Seen(
                    afStatus: note.userInfo?[CourierNotificationKey.reachabilityStatus] as? Int,
                    status: note.userInfo?[CourierNotificationKey.reachabilityDetailedStatus] as? ReachabilityStatus,
                    objectIsMonitor: monitor.map { note.object as AnyObject === $0 } ?? false
                )
                seen.withLock { $0.append(entry) }
            }
            defer { center.removeObserver(token) }
            let blockCalls = Locked<[ReachabilityStatus]>([])
            monitor.onChange { status in blockCalls.withLock { $0.append(status) } }
            monitor.postNotifications(to: center)
            try monitor.start()
            try monitor.start()  // registers once
            let delivered = await eventually { seen.withLock { $0.count } >= 1 }
            #expect(delivered)
            try await Task.sleep(for: .milliseconds(100))
            let notes = seen.withLock { $0 }
            #expect(notes.count == 1)
            #expect(blockCalls.withLock { $0 } == [monitor.status])
            let expectReachable = target != .anyNetwork || ProcessResources.hasDefaultRoute()
            #expect(monitor.isReachable == expectReachable)
            if let note = notes.first {
                #expect(note.objectIsMonitor)
                #expect(note.status == monitor.status)
                #expect(note.afStatus == (expectReachable ? AFNetworkReachabilityStatus.reachableViaWiFi.rawValue : 0))
            }
            monitor.stop()
            monitor.refresh()
            try await Task.sleep(for: .milliseconds(100))
            #expect(seen.withLock { $0.count } == 1)
            #expect(blockCalls.withLock { $0.count } == 1)
        }
    }
}
