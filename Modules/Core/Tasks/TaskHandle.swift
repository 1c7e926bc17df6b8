import Dispatch

/// What every task handle shares: its ``SessionTask`` and the controls forwarded to it.
public protocol TaskHandle: Sendable {
    /// The task behind the handle: identity, state, progress.
    var task: SessionTask { get }
}

extension TaskHandle {
    /// The task's identifier.
    public var id: UInt64 { task.id }
    /// The task's state.
    public var state: TaskState { task.state }
    /// Upload progress.
    public var uploadProgress: TransferProgress { task.uploadProgress }
    /// Download progress.
    public var downloadProgress: TransferProgress { task.downloadProgress }

    /// Starts the task, or continues it after `suspend()`.
    @discardableResult
    public func resume() -> Self { task.resume(); return self }
    /// Pauses the transfer until `resume()`.
    @discardableResult
    public func suspend() -> Self { task.suspend(); return self }
    /// Cancels the task; it completes with a cancellation error.
    public func cancel() { task.cancel() }

    /// Calls `handler` with upload progress on `queue` (the session's completion queue when `nil`)
    /// until the task completes, first with the progress so far if bytes have already moved; the
    /// handler may capture the task.
    @discardableResult
    public func onUploadProgress(queue: DispatchQueue? = nil, _ handler: @escaping @Sendable (TransferProgress) -> Void) -> Self {
        task.onUploadProgress(queue: queue, handler)
        return self
    }

    /// Calls `handler` with download progress on `queue` (the session's completion queue when `nil`)
    /// until the task completes, first with the progress so far if bytes have already arrived; the
    /// handler may capture the task.
    @discardableResult
    public func onDownloadProgress(queue: DispatchQueue? = nil, _ handler: @escaping @Sendable (TransferProgress) -> Void) -> Self {
        task.onDownloadProgress(queue: queue, handler)
        return self
    }
}

extension CompletionSlot {
    /// Waits for the result, resuming a task nobody started, and cancels the task when the
    /// awaiting Swift task is cancelled.
    func value(resuming task: SessionTask) async throws(CourierError) -> Value {
        if outcome == nil, !task.hasStarted { task.resume() }
        let outcome = await withTaskCancellationHandler {
            await wait()
        } onCancel: {
            task.cancel()
        }
        return try outcome.get()
    }
}
