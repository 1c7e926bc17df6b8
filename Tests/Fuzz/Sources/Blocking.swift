import Dispatch

/// Runs `operation` to completion and returns its result, for targets whose code under test is `async`.
///
/// libFuzzer calls a target synchronously on the main thread; the operation runs as a task on the global
/// executor while this thread waits. The code it drives never waits on anything outside the process, so the
/// wait ends as soon as the operation does (a hang is still one: libFuzzer's -timeout reports it).
func runBlocking<T: Sendable>(_ operation: @escaping @Sendable () async -> T) -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        box.value = await operation()
        done.signal()
    }
    done.wait()
    return box.value!
}

/// The result handed from the task to the waiting thread; the semaphore orders the write before the read.
private final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}
