import FoundationEssentials
import HTTPTypes

/// What a download that failed or was cancelled part-way needs to continue where it stopped: the
/// request, the file holding the bytes received so far, and the validator that proves the server's
/// file is still the same one (AFNetworking's and URLSession's resume data).
///
/// A failed ``DownloadTask`` carries it in ``CourierError/resumeData`` when the response could be
/// resumed: a `200` or `206` with a strong `ETag` or a `Last-Modified`, no content coding (a range
/// counts bytes of the coded body), and at least one byte written.
///
/// ```swift
/// do {
///     file = try await session.downloadTask(with: request, to: .url(target)).response.fileURL
/// } catch let error as CourierError {
///     guard let resumeData = error.resumeData else { throw error }
///     file = try await session.downloadTask(resumingWith: resumeData, to: .url(target)).response.fileURL
/// }
/// ```
/// Resuming sends `Range: bytes=N-` and `If-Range`: a `206` starting at byte N is appended to the
/// partial file, a `200` (the file changed, or the server ignores ranges) starts it over. It is
/// `Codable`, so it can outlive the process; the partial file is the caller's to delete when it
/// gives up (``partialFileURL``).
public struct ResumeData: Sendable, Hashable, Codable {
    /// The request to send again (the last one of the download, after redirects).
    public var request: HTTPRequest
    /// The file holding the first ``bytesWritten`` bytes of the body.
    public var partialFileURL: URL
    /// How many bytes of the body the partial file holds.
    public var bytesWritten: Int64
    /// The `If-Range` value: the response's strong `ETag`, else its `Last-Modified`. A failed download
    /// always has one; `nil` (resume data made by hand for a file of unknown origin) resumes without
    /// `If-Range`, trusting that the server's file has not changed.
    public var validator: String?

    /// Resume data; made by a failed download, or by hand for a partial file of your own.
    public init(request: HTTPRequest, partialFileURL: URL, bytesWritten: Int64, validator: String?) {
        self.request = request
        self.partialFileURL = partialFileURL
        self.bytesWritten = bytesWritten
        self.validator = validator
    }

    /// The validator a response offers for `If-Range` (RFC 9110 §13.1.5): a strong entity tag, else
    /// `Last-Modified`; `nil` when it has neither, or when it has a content coding.
    static func validator(for response: HTTPResponse) -> String? {
        if let coding = response.headerFields[.contentEncoding], coding.lowercased() != "identity" { return nil }
        if let etag = response.headerFields[.eTag], !etag.hasPrefix("W/") { return etag }
        return response.headerFields[.lastModified]
    }

    /// The request that continues the download. It asks for no content coding: a range counts
    /// bytes of the body as sent, and the partial file holds them uncoded.
    package var resumingRequest: HTTPRequest {
        var request = request
        request.headerFields[.range] = "bytes=\(bytesWritten)-"
        request.headerFields[.ifRange] = validator
        request.headerFields[.acceptEncoding] = "identity"
        return request
    }
}
