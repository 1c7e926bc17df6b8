import FoundationEssentials
import HTTPTypes

extension Session {
    /// Runs the chain, streams the body into a temporary file, then moves it into place.
    func performDownload(
        _ request: HTTPRequest,
        destination: DownloadDestination,
        task: SessionTask,
        options: RequestOptions
    ) async -> Result<DownloadResponse, CourierError> {
        let response: Response
        do {
            response = try await runChain(request, body: nil, task: task, options: options)
        } catch {
            return .failure(error)
        }
        let finalRequest = response.request ?? request
        let temporary = FileManager.default.temporaryDirectory
            .appending(path: "courier-download-\(id)-\(task.id)-\(UInt32.random(in: 0...UInt32.max)).part")
        do {
            let file = try FileDescriptor.openForWriting(temporary.path(percentEncoded: false))
            for try await chunk in response.body {
                try file.write(chunk)
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            var wrapped = normalized(error, task: task, request: finalRequest)
            if !(error is CourierError) && !wrapped.isCancellation {
                // Writing the file is the download stage; reading the body is the body's.
                wrapped.stage = error is FileError ? .download : .responseBody
            }
            wrapped.response = response.head
            return .failure(wrapped)
        }
        let suggested = DownloadDestination.suggestedFilename(for: response.head, request: finalRequest)
        let target = configuration.downloadDestination?(task, response.head)
            ?? destination.resolve(response.head, suggested)
        do {
            try move(temporary, to: target, options: destination.options)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            return .failure(CourierError(stage: .download, request: finalRequest, response: response.head, underlyingError: error))
        }
        task.listener.downloadMoved(task, to: target)
        return .success(DownloadResponse(
            request: finalRequest, head: response.head, fileURL: target,
            metrics: task.metrics ?? response.metrics, history: response.history
        ))
    }

    private func move(_ source: URL, to target: URL, options: DownloadDestination.Options) throws(FileError) {
        let manager = FileManager.default
        let targetPath = target.path(percentEncoded: false)
        do {
            if options.contains(.createIntermediateDirectories) {
                try manager.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            }
            if options.contains(.removePreviousFile), manager.fileExists(atPath: targetPath) {
                try manager.removeItem(at: target)
            }
            try manager.moveItem(at: source, to: target)
        } catch {
            throw FileError(operation: .move, path: targetPath, reason: "\(error)")
        }
    }
}
