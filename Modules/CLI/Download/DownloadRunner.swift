import CourierCore
import CourierCurl
import Foundation
import HTTPTypes

/// `-d` and `-o`: streams a 2xx body into a file, with a progress bar, and with `-c` resumes a
/// partial file.
///
/// Resuming: when the file exists with N bytes, the request carries `Range: bytes=N-` and, when
/// the sidecar (``ResumeRecord``) holds a validator, `If-Range`. A 206 starting at N is appended;
/// a 200 (the file changed, or the server ignores ranges) replaces the file; a 416 whose
/// `Content-Range` says the length is N means the file is already complete. A non-2xx answer
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
        if command.resume, let path, let size = OutputFile.size(at: path), size > 0 {
            offset = size
            request.headerFields[.range] = "bytes=\(size)-"
            if let record = ResumeRecord.load(for: path), record.url == url, let validator = record.ifRange {
                request.headerFields[.ifRange] = validator
            }
        }

        let response = try await session.send(request, body: plan.uploadBody)
        let code = response.status.code
        if offset > 0, code == 416, let path {
            return try await alreadyComplete(response, path: path, size: offset)
        }
        guard (200..<300).contains(code) else {
            try await BodyPrinter(pretty: command.pretty, progress: false, quiet: command.quiet).print(response)
            return ExitStatus.code(for: response.status)
        }

        var mode = OutputFile.Mode.truncate
        var start: Int64 = 0
        if offset > 0 {
            if code == 206 {
                let range = response.head.headerFields[.contentRange].flatMap(ContentRange.init)
                guard let range, range.first == offset else {
                    throw CLIError(
                        "the server answered the resume with \(response.head.headerFields[.contentRange] ?? "no Content-Range"), not a range starting at byte \(offset)",
                        hint: "download the file again without -c"
                    )
                }
                mode = .append
                start = offset
            } else if !command.quiet {
                Console.errorLine("courier: the server sent the whole file (\(code)); starting over")
            }
        }
        let file = try open(response, path: path, mode: mode)
        ResumeRecord(
            url: url,
            etag: response.head.headerFields[.eTag],
            lastModified: response.head.headerFields[.lastModified]
        ).save(for: file.path)

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
            throw Self.withResumeHint(error, path: file.path)
        }
        reporter?.finish()
        ResumeRecord.remove(for: file.path)
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

    /// A 416 to a resume: complete when the server's length is the file's.
    private func alreadyComplete(_ response: Response, path: String, size: Int64) async throws -> Int32 {
        try await BodyReader(response).drain()
        let range = response.head.headerFields[.contentRange].flatMap(ContentRange.init)
        if let length = range?.completeLength, length != size {
            throw CLIError(
                "cannot resume \"\(path)\": it has \(size) bytes, the server's file has \(length)",
                hint: "download the file again without -c"
            )
        }
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
