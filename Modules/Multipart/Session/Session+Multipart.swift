import CourierCore
import FoundationEssentials
import HTTPTypes

extension Session {
    /// Sends `form` to `path` (resolved against the base URL) and returns the task, resumed.
    ///
    /// The session's request serializer runs first with no parameters, so its default header
    /// fields (`User-Agent`, `Accept-Language`…) apply; the form then sets `Content-Type` and
    /// `Content-Length`. Upload progress counts the form's bytes.
    ///
    /// ```swift
    /// var form = MultipartFormData()
    /// try form.appendFile(at: "/tmp/report.pdf", name: "report")
    /// let response = try await session.upload(form, to: "reports").response
    /// ```
    ///
    /// - Throws: a ``CourierCore/CourierError`` at stage `requestSerialization` (nothing sent)
    ///   for a bad URL or header, a `GET`/`HEAD` method, or the serializer's error.
    public func upload(
        _ form: MultipartFormData,
        to path: String,
        method: HTTPRequest.Method = .post,
        headers: HTTPFields = [:],
        options: RequestOptions = .default
    ) throws(CourierError) -> DataTask {
        let request = try makeRequest(method, path, headers: headers)
        let base = try serialize(request, parameters: nil)
        let serialized: SerializedRequest
        do {
            serialized = try form.serialize(base.request, body: base.body)
        } catch {
            throw CourierError(stage: .requestSerialization, request: base.request, underlyingError: error)
        }
        return dataTask(with: serialized.request, body: serialized.body, options: options).resume()
    }

    /// Builds a form from `parameters` (as text parts, first) and `build`'s parts, then sends it
    /// like ``upload(_:to:method:headers:options:)`` (AFNetworking's
    /// `POST:parameters:headers:constructingBodyWithBlock:…`).
    ///
    /// ```swift
    /// let task = try session.upload(to: "post", parameters: ["key": "value"]) { form in
    ///     form.append(Data("Data".utf8), name: "DataName", fileName: "DataFileName", mimeType: "data")
    /// }
    /// ```
    ///
    /// - Throws: a ``CourierCore/CourierError`` at stage `requestSerialization` with the
    ///   builder's or the parameters' error; nothing is sent then.
    public func upload(
        to path: String,
        method: HTTPRequest.Method = .post,
        parameters: Parameters? = nil,
        headers: HTTPFields = [:],
        options: RequestOptions = .default,
        constructingBodyWith build: (inout MultipartFormData) throws -> Void
    ) throws(CourierError) -> DataTask {
        var form = MultipartFormData()
        do {
            if let parameters { try form.appendParameters(parameters) }
            try build(&form)
        } catch {
            throw CourierError(stage: .requestSerialization, underlyingError: error)
        }
        return try upload(form, to: path, method: method, headers: headers, options: options)
    }
}
