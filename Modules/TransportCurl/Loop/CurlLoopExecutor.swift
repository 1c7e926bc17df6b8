/// A `TaskExecutor` that runs jobs on the curl thread, between passes of the loop.
///
/// Code that runs with a preference for it (`withTaskExecutorPreference(transport.executor)`)
/// and awaits a transfer resumes on the same thread that finished the transfer: no hop between
/// threads, which is most of the cost of a small request. Such code must never block.
final class CurlLoopExecutor: TaskExecutor {
    unowned let loop: CurlMultiLoop

    init(loop: CurlMultiLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        loop.submit(.job(UnownedJob(job)))
    }
}
