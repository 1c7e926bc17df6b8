import CourierCore
import CourierReachability
import Dispatch
import Foundation

extension Notification.Name {
    /// A reachability monitor's status changed (AFNetworking's
    /// `AFNetworkingReachabilityDidChangeNotification`); the object is the ``ReachabilityMonitor``.
    public static let courierReachabilityDidChange = Notification.Name("com.alamofire.networking.reachability.change")
}

extension CourierNotificationKey {
    /// AFNetworking's `AFNetworkingReachabilityNotificationStatusItem`: the status as
    /// AFNetworking's raw value (`Int`: −1 unknown, 0 not reachable, 1 WWAN, 2 WiFi).
    public static let reachabilityStatus = "AFNetworkingReachabilityNotificationStatusItem"
    /// Courier's own key: the full ``ReachabilityStatus`` (interface kind and name included).
    public static let reachabilityDetailedStatus = "com.courier.networking.reachability.status"
}

extension ReachabilityMonitor {
    /// Posts ``Foundation/Notification/Name/courierReachabilityDidChange`` on `center` for the first status after
    /// each start and every change, with the monitor as the object, until the returned
    /// observation is cancelled. Register it before the handlers that should run first:
    /// AFNetworking called its status block, then posted.
    ///
    /// Posts synchronously on the monitor's delivery thread, or asynchronously on `queue`
    /// (`.main` for AFNetworking's behaviour in a program that runs the main queue). It lives in
    /// the umbrella module because `NotificationCenter` needs full Foundation.
    ///
    /// ```swift
    /// let monitor = ReachabilityMonitor(target: .anyNetwork)
    /// let notifications = monitor.postNotifications()
    /// try monitor.start()
    /// ```
    @discardableResult
    public func postNotifications(to center: NotificationCenter = .default, queue: DispatchQueue? = nil) -> ReachabilityObservation {
        onChange { [weak self] status in
            guard let self else { return }
            let post: @Sendable () -> Void = {
                center.post(name: .courierReachabilityDidChange, object: self, userInfo: [
                    CourierNotificationKey.reachabilityStatus: status.afNetworkingStatus.rawValue,
                    CourierNotificationKey.reachabilityDetailedStatus: status,
                ])
            }
            if let queue { queue.async(execute: post) } else { post() }
        }
    }
}
