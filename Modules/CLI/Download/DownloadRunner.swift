import CourierCore
import CourierCurl
import Foundation
import HTTPTypes

/// `-d` and `-o`: streams a 2xx body into a file, with a progress bar, and with `-c` resumes a
/// partial file.
///
/// Resuming is the library's (``ResumeData``, ``DownloadPlan``): when the file exists with N bytes, the
/// request carries `Range: bytes=N-` and, when the sidecar (``ResumeRecord``) holds a validator,
/// `If-Range`. A 206 starting at N is appended; a 200 (the file changed, or the server ignores
/// ranges) replaces the file; a 416 whose `Content-Range` says the length is N means the file is
/// already complete; a 206 from another byte, or with a content coding, is refused. A non-2xx answer
/// never touches the file: its body goes to stdout, as without `-d`.
struct DownloadRunner {
    let command: RequestCommand
    let session: Session
    var plan: RequestPlan
    let version: CurlTransport.Configuration.HTTPVersion

    func run() async throws -> Int32 {
        var request = plan.request
        let url = request.url?.absoluteString ?? ""
        // The path is known before the exchange with -o, or with -d -c (the URL's name: the
        // Content-Disposition of a response not yet received cannot name a file to resume).
        var path = command.output
        if path == nil, command.resume {
            path = DownloadFileName.suggested(contentDisposition: nil, url: request.url, contentType: nil)
        }
        var offset: Int64 = 0
        var resuming: ResumeData?
        if command.resume, let path, let size = OutputFile.size(at: path), size > 0 {
            offset = size
            // The library's resume (Range, and If-Range when the sidecar holds a validator for this URL).
            let record = ResumeRecord.load(for: path)
            let validator = record?.url == url ? record?.ifRange : nil
            let data = ResumeData(request: request, partialFileURL: URL(fileURLWithPath: path), bytesWritten: size, validator: validator)
            resuming = data
            let acceptEncoding = request.headerFields[.acceptEncoding]
            request = data.resumingRequest
            // courier keeps a file as sent; the library's identity request would not match a coded partial file.
            request.headerFields[.acceptEncoding] = acceptEncoding
        }

        let response = try await session.send(request, body: plan.uploadBody)
        let code = response.status.code
        var mode = OutputFile.Mode.truncate
        var start: Int64 = 0
        if let resuming, let path, [200, 206, 416].contains(code) {
            // What the library decides for a resumed download: append a 206 from the right byte, start over on
            // a 200, take a 416 with the partial file's length as complete, refuse anything else.
            let decision: DownloadPlan
            do {
                decision = try DownloadPlan(response: response.head, resuming: resuming, temporary: resuming.partialFileURL)
            } catch {
                try? await BodyReader(response).drain()
                throw CLIError("cannot resume \"\(path)\": \(error.message)", hint: "download the file again without -c")
            }
            if decision.alreadyComplete { return try await alreadyComplete(response, path: path, size: offset) }
            if decision.appends {
                mode = .append
                start = decision.startOffset
            } else if !command.quiet {
                Console.errorLine("courier: the server sent the whole file (\(code)); starting over")
            }
        }
        guard (200..<300).contains(code) else {
            try await BodyPrinter(pretty: command.pretty, progress: false, quiet: command.quiet).print(response)
            return ExitStatus.code(for: response.status)
        }
        let file = try open(response, path: path, mode: mode)
        let resumable = file.isRegularFile
        if resumable {
            ResumeRecord(
                url: url,
                etag: response.head.headerFields[.eTag],
                lastModified: response.head.headerFields[.lastModified]
            ).save(for: file.path)
        }

        if !command.quiet {
            let verb = mode == .append ? "Resuming" : "Downloading"
            let from = mode == .append ? " from byte \(start)" : ""
            Console.errorLine("\(verb) to \"\(Console.Stream.error.displayable(file.path))\"\(from)")
        }
        let reporter = command.quiet ? nil : ProgressPolicy.reporter(
            explicit: command.progress, length: response.body.length, bodyGoesToTerminal: false, offset: start
        )
        let reader = BodyReader(response, offset: start)
        do {
            try await reader.forEachChunk(progress: reporter) { chunk throws(CLIError) in
                try file.write(chunk)
            }
        } catch {
            throw resumable ? Self.withResumeHint(error, path: file.path) : error
        }
        reporter?.finish()
        if resumable { ResumeRecord.remove(for: file.path) }
        if !command.quiet, reporter == nil {
            Console.errorLine("Saved \"\(Console.Stream.error.displayable(file.path))\" (\(ByteFormatting.size(reader.received)))")
        }
        return ExitStatus.code(for: response.status)
    }

    /// Opens the target: the given path, or with plain `-d` the suggested name made unique.
    private func open(_ response: Response, path: String?, mode: OutputFile.Mode) throws(CLIError) -> OutputFile {
        if let path {
            do {
                return try OutputFile(path: path, mode: mode)
            } catch {
                throw error.report
            }
        }
        let suggested = DownloadFileName.suggested(
            contentDisposition: response.head.headerFields[.contentDisposition],
            url: (response.request ?? plan.request).url,
            contentType: response.head.headerFields[.contentType]
        )
        // O_EXCL makes "never overwrite" hold even against a file created meanwhile.
        var taken: Set<String> = []
        while true {
            let name = DownloadFileName.unique(suggested) { taken.contains($0) || OutputFile.exists($0) }
            do {
                return try OutputFile(path: name, mode: .createNew)
            } catch {
                guard case .exists = error else { throw error.report }
                taken.insert(name)
            }
        }
    }

    /// A 416 to a resume whose `Content-Range` length is the partial file's: nothing is left to download.
    private func alreadyComplete(_ response: Response, path: String, size: Int64) async throws -> Int32 {
        try await BodyReader(response).drain()
        ResumeRecord.remove(for: path)
        if !command.quiet {
            Console.errorLine("\"\(Console.Stream.error.displayable(path))\" is already complete (\(ByteFormatting.size(size)))")
        }
        return ExitStatus.success
    }

    /// A failure during the body, with a hint that `-c` picks up where it stopped.
    private static func withResumeHint(_ error: any Error, path: String) -> any Error {
        guard let courierError = error as? CourierError, !courierError.isCancellation else { return error }
        let (message, _) = ErrorReport.describe(courierError)
        return CLIError(
            message + " (the partial file \"\(path)\" was kept)",
            hint: "resume it with: courier -c -o \(CurlCommand.shellQuoted(path)) …",
            exitCode: ExitStatus.code(for: courierError)
        )
    }
}
