import FoundationEssentials
import HTTPTypes

/// Where the bytes of a download's response go, decided from its head alone (pure, no I/O, so
/// every rule is unit-tested without sockets).
///
/// A fresh download writes a new temporary file. A resumed one (``ResumeData``) appends a `206`
/// that starts where the partial file ends, starts the partial file over on a `200` (the file
/// changed, or the server ignores ranges), takes a `416` whose `Content-Range` length is the
/// partial file's as "already complete", and writes any other answer to a new file as a fresh
/// download would, leaving the partial file alone.
package struct DownloadPlan: Equatable {
    /// The file the body is written to.
    package var file: URL
    /// Whether the body is added to the end of ``file`` rather than replacing it.
    package var appends = false
    /// Whether the partial file already holds the whole body (a `416` to the resume).
    package var alreadyComplete = false
    /// Whether a failure should delete ``file``: true for a file this download made or started
    /// over, false for a partial file it only added to.
    package var ownsFile = true
    /// Bytes of the body in ``file`` before this response's.
    package var startOffset: Int64 = 0
    /// The `If-Range` value a resume of this response would send; `nil`: it cannot be resumed.
    package var validator: String?
    /// The resume data to hand back unchanged when this response is not the file (another status).
    package var previous: ResumeData?

    package init(response: HTTPResponse, resuming: ResumeData?, temporary: URL) throws(TransportError) {
        file = temporary
        let code = response.status.code
        guard let resuming else {
            if code == 200 { validator = ResumeData.validator(for: response) }
            return
        }
        let range = response.headerFields[.contentRange].flatMap(ContentRange.init)
        switch code {
        case 206:
            let coded = response.headerFields[.contentEncoding].map { $0.lowercased() != "identity" } ?? false
            guard let range, range.first == resuming.bytesWritten, !coded else {
                throw TransportError(
                    .malformedResponse,
                    message: "the server answered a resume from byte \(resuming.bytesWritten) with \(response.headerFields[.contentRange] ?? "no Content-Range")"
                )
            }
            file = resuming.partialFileURL
            appends = true
            ownsFile = false
            startOffset = resuming.bytesWritten
            validator = resuming.validator
        case 200:
            file = resuming.partialFileURL
            validator = ResumeData.validator(for: response)
        case 416:
            guard let length = range?.completeLength, length == resuming.bytesWritten else {
                throw TransportError(
                    .malformedResponse,
                    message: "cannot resume: the partial file has \(resuming.bytesWritten) bytes, the server's file \(range?.completeLength.map { "has \($0)" } ?? "gave no length")"
                )
            }
            file = resuming.partialFileURL
            alreadyComplete = true
            ownsFile = false
        default:
            previous = resuming
        }
    }

    /// What resumes this download after `written` more bytes reached ``file``, if anything can.
    package func resumeData(request: HTTPRequest, written: Int64) -> ResumeData? {
        guard let validator else { return previous }
        guard startOffset + written > 0 else { return nil }
        var request = request
        request.headerFields[.range] = nil
        request.headerFields[.ifRange] = nil
        return ResumeData(request: request, partialFileURL: file, bytesWritten: startOffset + written, validator: validator)
    }
}
