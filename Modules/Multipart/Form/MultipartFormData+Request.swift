import CourierCore
import FoundationEssentials
import HTTPTypes
#if canImport(Glibc)
import Glibc
#endif

extension MultipartFormData {
    /// `request` carrying the form: `Content-Type: multipart/form-data; boundary=…` (replacing any
    /// other, as AFNetworking does), the exact `Content-Length`, and ``makeBody()``.
    ///
    /// An empty form leaves the request and `body` as they are (AFNetworking returns the request
    /// its serializer built), so no multipart header is sent for nothing.
    ///
    /// - Parameter body: The body the request had before, kept for an empty form.
    /// - Throws: ``MultipartError/Reason/methodWithoutBody`` for `GET` and `HEAD`.
    public func serialize(_ request: HTTPRequest, body: Body? = nil) throws(MultipartError) -> SerializedRequest {
        try Self.checkMethod(request.method)
        guard !isEmpty else { return SerializedRequest(request: request, body: body) }
        return SerializedRequest(request: withHeaders(request), body: makeBody())
    }

    /// Writes the whole body to `path` (created or truncated) and returns `request` with the
    /// form's `Content-Type` and `Content-Length` but no body, ready for an upload from that
    /// file (AFNetworking's `requestWithMultipartFormRequest:writingStreamContentsToFile:`).
    ///
    /// ```swift
    /// let head = try await form.writeBody(toFileAt: "/tmp/form.bin", for: request)
    /// let task = session.uploadTask(with: head, from: .file(path: "/tmp/form.bin"))
    /// ```
    ///
    /// The throttle does not apply: nothing waits while writing a file.
    ///
    /// - Throws: a ``CourierCore/FileError`` when the file cannot be written or a part's file
    ///   read, a ``MultipartError`` when a stream part is short, or the method carries no body.
    /// An empty form writes an empty file and returns `request` unchanged, as ``serialize(_:body:)``
    /// leaves it. A failure part way removes the partial file.
    public func writeBody(toFileAt path: String, for request: HTTPRequest) async throws -> HTTPRequest {
        try Self.checkMethod(request.method)
        let output = try FileDescriptor.openForWriting(path)
        do {
            for try await chunk in makeBody(throttle: nil) {
                try output.write(chunk)
            }
        } catch {
            unlink(path)
            throw error
        }
        return isEmpty ? request : withHeaders(request)
    }

    private func withHeaders(_ request: HTTPRequest) -> HTTPRequest {
        var request = request
        request.headerFields[.contentType] = contentType
        request.headerFields[.contentLength] = String(contentLength)
        return request
    }

    private static func checkMethod(_ method: HTTPRequest.Method) throws(MultipartError) {
        let name = method.rawValue.uppercased()
        guard name != "GET", name != "HEAD" else {
            throw MultipartError(.methodWithoutBody, detail: "\(method.rawValue) requests carry no body; send the form with POST, PUT or PATCH")
        }
    }
}
