import CourierCore

/// Feeds a ``ProgressReporter`` from a task's upload progress: the bar of a multipart upload.
struct UploadProgressListener: EventListener {
    let reporter: ProgressReporter

    init(_ reporter: ProgressReporter) {
        self.reporter = reporter
    }

    func uploadProgress(_ task: SessionTask, progress: TransferProgress) {
        reporter.update(completed: progress.completed, total: progress.total)
    }
}
