/// A `TaskExecutor` that runs jobs on the curl thread, between passes of the loop.
///
/// Code that runs with a preference for it (`withTaskExecutorPreference(transport.executor)`)
/// and awaits a transfer resumes on the same thread that finished the transfer: no hop between
/// threads, which is most of the cost of a small request. Such code must never block.
final class CurlLoopExecutor: TaskExecutor {
    /// Weak: the loop owns its executor; once the transport is gone, jobs run on the global
    /// executor instead of being lost.
    private weak let loop: CurlMultiLoop?

    init(loop: CurlMultiLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if let loop {
            loop.submit(.job(job))
        } else {
            job.runSynchronously(on: globalConcurrentExecutor.asUnownedTaskExecutor())
        }
    }
}
