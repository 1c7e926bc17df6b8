import Dispatch

/// Runs `operation` to completion and returns its result, for targets whose code under test is `async`.
///
/// libFuzzer calls a target synchronously on the main thread; the operation runs as a task on the global
/// executor while this thread waits. The code it drives never waits on anything outside the process, so the
/// wait ends as soon as the operation does (a hang is still one: libFuzzer's -timeout reports it).
///
/// The operation, and with it everything it captured, is released before the wait ends. libFuzzer checks
/// for leaks as soon as a target returns when an input allocated more than it freed; a task still
/// dropping its closure on a pool thread at that moment showed its captures as leaked (a multipart body's
/// bytes, in the bounded CI run).
func runBlocking<T: Sendable>(_ operation: @escaping @Sendable () async -> T) -> T {
    let box = ResultBox<T>()
    let work = WorkBox(operation)
    let done = DispatchSemaphore(value: 0)
    Task {
        var operation = work.take()
        box.value = await operation?()
        operation = nil
        done.signal()
    }
    done.wait()
    return box.value!
}

/// The result handed from the task to the waiting thread; the semaphore orders the write before the read.
private final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}

/// Hands the operation to its task once, so the task can drop it before it signals (a closure the task
/// captured directly would live until the task itself is freed). The semaphore orders the take before
/// the box's release on the waiting thread.
private final class WorkBox<T>: @unchecked Sendable {
    private var operation: (@Sendable () async -> T)?
    init(_ operation: @escaping @Sendable () async -> T) { self.operation = operation }
    func take() -> (@Sendable () async -> T)? {
        defer { operation = nil }
        return operation
    }
}
