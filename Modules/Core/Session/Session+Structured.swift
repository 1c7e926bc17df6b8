import HTTPTypes

extension Session {
    /// `method path`, built as the session builds every request — resolved against the base URL,
    /// with the session's headers and its request serializer applied to `parameters` — sent in the
    /// caller's Swift task (cancelling it cancels the transfer), and read whole.
    ///
    /// ```swift
    /// let report = try await api.data(.get, "report", parameters: ["year": 2026])
    /// print(report.status, report.data.count)
    /// ```
    /// The response is returned whatever its status; the typed forms (``value(_:_:parameters:headers:options:using:)``
    /// and the `as:` verbs of CourierResponseSerialization) validate it.
    ///
    /// - Throws: a ``CourierError`` at stage ``CourierError/Stage/requestSerialization`` when the URL,
    ///   a header or the parameters are invalid (nothing is sent), or the call's failure.
    public func data(
        _ method: HTTPRequest.Method,
        _ path: String,
        parameters: Parameters? = nil,
        headers: HTTPFields = [:],
        options: RequestOptions = .default
    ) async throws(CourierError) -> DataResponse {
        let serialized = try serialize(try makeRequest(method, path, headers: headers), parameters: parameters)
        return try await data(for: serialized.request, body: serialized.body, options: options)
    }

    /// `method path` with `body` as it is (the request serializer is not asked), sent in the
    /// caller's task and read whole; `contentType` becomes the `Content-Type` unless `headers`
    /// name one.
    public func data(
        _ method: HTTPRequest.Method,
        _ path: String,
        body: Body,
        contentType: String,
        headers: HTTPFields = [:],
        options: RequestOptions = .default
    ) async throws(CourierError) -> DataResponse {
        var request = try makeRequest(method, path, headers: headers)
        if request.headerFields[.contentType] == nil { request.headerFields[.contentType] = contentType }
        return try await data(for: request, body: body, options: options)
    }

    /// `method path` turned into a value by `serializer`, in the caller's task.
    ///
    /// ```swift
    /// let document = try await api.value(.get, "json", using: JSONResponseSerializer())
    /// ```
    public func value<Serializer: ResponseSerializer>(
        _ method: HTTPRequest.Method,
        _ path: String,
        parameters: Parameters? = nil,
        headers: HTTPFields = [:],
        options: RequestOptions = .default,
        using serializer: Serializer
    ) async throws(CourierError) -> Serializer.Value {
        try serialize(try await data(method, path, parameters: parameters, headers: headers, options: options), with: serializer)
    }

    /// `response` turned into a value by `serializer`; a failure is a ``CourierError`` at stage
    /// ``CourierError/Stage/responseSerialization`` carrying the request, the head and the body.
    public func value<Serializer: ResponseSerializer>(
        of response: DataResponse,
        using serializer: Serializer
    ) throws(CourierError) -> Serializer.Value {
        try serialize(response, with: serializer)
    }
}
