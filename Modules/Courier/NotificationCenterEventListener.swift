import Dispatch
import Foundation
import HTTPTypes

extension Notification.Name {
    /// A task started or continued (AFNetworking's `AFNetworkingTaskDidResumeNotification`).
    public static let courierTaskDidResume = Notification.Name("com.alamofire.networking.task.resume")
    /// A task was suspended (`AFNetworkingTaskDidSuspendNotification`).
    public static let courierTaskDidSuspend = Notification.Name("com.alamofire.networking.task.suspend")
    /// A task finished, successfully or not (`AFNetworkingTaskDidCompleteNotification`).
    public static let courierTaskDidComplete = Notification.Name("com.alamofire.networking.task.complete")
    /// A download's file was moved into place (`AFURLSessionDownloadTaskDidMoveFileSuccessfullyNotification`).
    public static let courierDownloadDidMoveFile = Notification.Name("com.alamofire.networking.session.download.file-manager-succeed")
    /// A download's file could not be moved (`AFURLSessionDownloadTaskDidFailToMoveFileNotification`).
    public static let courierDownloadDidFailToMoveFile = Notification.Name("com.alamofire.networking.session.download.file-manager-error")
}

/// Keys of the `userInfo` of Courier's notifications: AFNetworking's strings where AFNetworking
/// had the key, a `com.courier` one where it had none.
public enum CourierNotificationKey {
    /// The `CourierError` a task failed with.
    public static let error = "com.alamofire.networking.task.complete.error"
    /// The final `HTTPResponse` head (Courier's own key: AFNetworking passed the task instead).
    public static let response = "com.courier.networking.task.complete.response"
    /// The task's `TransferMetrics`, when measured.
    public static let metrics = "com.alamofire.networking.complete.sessiontaskmetrics"
    /// A download's file URL, in the complete and the move notifications.
    public static let assetPath = "com.alamofire.networking.task.complete.assetpath"
}

/// Posts AFNetworking's task notifications for code that observes `NotificationCenter`
/// (an activity indicator, analytics), with the ``SessionTask`` as the object.
///
/// It lives in the umbrella module because `NotificationCenter` needs full Foundation, which
/// `CourierCore` does not link.
///
/// ```swift
/// let configuration = SessionConfiguration(eventListener: NotificationCenterEventListener())
/// NotificationCenter.default.addObserver(forName: .courierTaskDidResume, object: nil, queue: nil) { note in … }
/// ```
public struct NotificationCenterEventListener: EventListener {
    let center: NotificationCenter
    let queue: DispatchQueue?
    /// Downloads moved but not yet completed, so the complete notification can name the file.
    private let movedFiles = Locked<[UInt64: URL]>([:])

    /// Posts on `center`; synchronously on the event's thread when `queue` is `nil`, else
    /// asynchronously on `queue` (AFNetworking posted on the main queue; pass `.main` for that in
    /// an app that runs it).
    public init(center: NotificationCenter = .default, queue: DispatchQueue? = nil) {
        self.center = center
        self.queue = queue
    }

    public func taskResumed(_ task: SessionTask) { post(.courierTaskDidResume, task) }
    public func taskSuspended(_ task: SessionTask) { post(.courierTaskDidSuspend, task) }

    public func downloadMoved(_ task: SessionTask, to fileURL: URL) {
        movedFiles.withLock { $0[task.id] = fileURL }
        post(.courierDownloadDidMoveFile, task, [CourierNotificationKey.assetPath: fileURL])
    }

    public func taskCompleted(_ task: SessionTask, response: HTTPResponse) {
        var info: [String: any Sendable] = [CourierNotificationKey.response: response]
        if let metrics = task.metrics { info[CourierNotificationKey.metrics] = metrics }
        if let file = movedFiles.withLock({ $0.removeValue(forKey: task.id) }) {
            info[CourierNotificationKey.assetPath] = file
        }
        post(.courierTaskDidComplete, task, info)
    }

    public func taskFailed(_ task: SessionTask, error: CourierError) {
        if error.stage == .download, (error.underlyingError as? FileError)?.operation == .move {
            post(.courierDownloadDidFailToMoveFile, task, [CourierNotificationKey.error: error])
        }
        var info: [String: any Sendable] = [CourierNotificationKey.error: error]
        if let response = error.response { info[CourierNotificationKey.response] = response }
        if let metrics = task.metrics { info[CourierNotificationKey.metrics] = metrics }
        post(.courierTaskDidComplete, task, info)
    }

    private func post(_ name: Notification.Name, _ task: SessionTask, _ info: [String: any Sendable] = [:]) {
        let center = self.center
        let send: @Sendable () -> Void = {
            center.post(name: name, object: task, userInfo: info.isEmpty ? nil : info)
        }
        if let queue { queue.async(execute: send) } else { send() }
    }
}
