#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import FoundationEssentials
import HTTPTypes

extension Session {
    /// Runs the chain, streams the body into a temporary file (or, resuming, the partial file),
    /// then moves it into place. A failure part-way keeps the file and says how to resume
    /// (``CourierError/resumeData``) when the response allows it.
    func performDownload(
        _ request: HTTPRequest,
        destination: DownloadDestination,
        task: SessionTask,
        options: RequestOptions,
        resuming: ResumeData? = nil
    ) async -> Result<DownloadResponse, CourierError> {
        let sent = resuming?.resumingRequest ?? request
        let response: Response
        do {
            response = try await runChain(sent, body: nil, task: task, options: options)
        } catch {
            var error = error
            error.resumeData = resuming  // nothing was written: the partial file is as it was
            return .failure(error)
        }
        let finalRequest = response.request ?? sent
        let plan: DownloadPlan
        do {
            plan = try DownloadPlan(response: response.head, resuming: resuming, temporary: temporaryFile(for: task))
        } catch {
            await response.body.drain(upTo: 64 * 1024)
            var failure = CourierError(stage: .download, request: finalRequest, response: response.head, underlyingError: error)
            failure.resumeData = resuming
            return .failure(failure)
        }
        if plan.alreadyComplete {
            await response.body.drain(upTo: 64 * 1024)
        } else {
            var written: Int64 = 0
            do {
                let file = try FileDescriptor.openForWriting(plan.file.path(percentEncoded: false), append: plan.appends)
                for try await chunk in response.body {
                    try file.write(chunk)
                    written += Int64(chunk.count)
                }
            } catch {
                var wrapped = normalized(error, task: task, request: finalRequest)
                if !(error is CourierError) && !wrapped.isCancellation {
                    // Writing the file is the download stage; reading the body is the body's.
                    wrapped.stage = error is FileError ? .download : .responseBody
                }
                wrapped.response = response.head
                wrapped.resumeData = plan.resumeData(request: finalRequest, written: written)
                if plan.ownsFile, wrapped.resumeData?.partialFileURL != plan.file { try? FileManager.default.removeItem(at: plan.file) }
                return .failure(wrapped)
            }
        }
        let suggested = DownloadDestination.suggestedFilename(for: response.head, request: finalRequest)
        let target = configuration.downloadDestination?(task, response.head)
            ?? destination.resolve(response.head, suggested)
        do {
            try move(plan.file, to: target, options: destination.options)
        } catch {
            if plan.ownsFile { try? FileManager.default.removeItem(at: plan.file) }
            return .failure(CourierError(stage: .download, request: finalRequest, response: response.head, underlyingError: error))
        }
        task.listener.downloadMoved(task, to: target)
        return .success(DownloadResponse(
            request: finalRequest, head: response.head, fileURL: target,
            metrics: task.metrics ?? response.metrics, history: response.history
        ))
    }

    /// A new file name in the user's own scratch directory (``DownloadScratch``), where nobody else can
    /// read the body or put anything in its way.
    ///
    /// `download-<pid>-<session>-<task>-<random>.part`: the directory outlives the process (a partial file waits
    /// there for a resume), and session and task numbers start again in every process, so the process ID is what
    /// tells one program's files from another's.
    private func temporaryFile(for task: SessionTask) throws -> URL {
        URL(filePath: try DownloadScratch.directory(), directoryHint: .isDirectory)
            .appending(path: "download-\(getpid())-\(id)-\(task.id)-\(UInt32.random(in: 0...UInt32.max)).part")
    }

    private func move(_ source: URL, to target: URL, options: DownloadDestination.Options) throws(FileError) {
        let manager = FileManager.default
        let sourcePath = source.path(percentEncoded: false)
        let targetPath = target.path(percentEncoded: false)
        do {
            if options.contains(.createIntermediateDirectories) {
                try manager.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            }
            if options.contains(.removePreviousFile) {
                // rename(2) replaces a file in one step and refuses a directory. Removing whatever had the name
                // first deleted a whole directory tree that happened to share a server's suggested name.
                if rename(sourcePath, targetPath) == 0 { return }
                guard errno == EXDEV else { throw FileError(operation: .move, path: targetPath, errno: errno) }
                // Another file system: the file there goes (unlink refuses a directory), then a copy is made.
                guard unlink(targetPath) == 0 || errno == ENOENT else { throw FileError(operation: .move, path: targetPath, errno: errno) }
            }
            try manager.moveItem(at: source, to: target)
        } catch let error as FileError {
            throw error
        } catch {
            throw FileError(operation: .move, path: targetPath, reason: "\(error)")
        }
    }
}
