import HTTPTypes

extension Session {
    /// Builds a request for `path` (resolved against the base URL), applies the request
    /// serializer to `parameters`, and returns the task already resumed
    /// (AFNetworking's `GET:parameters:headers:…`).
    ///
    /// - Throws: a ``CourierError`` at stage ``CourierError/Stage/requestSerialization`` when the
    ///   URL, a header or the parameters are invalid; nothing is sent then.
    public func request(
        _ method: HTTPRequest.Method,
        _ path: String,
        parameters: Parameters? = nil,
        headers: HTTPFields = [:],
        options: RequestOptions = .default
    ) throws(CourierError) -> DataTask {
        let request = try makeRequest(method, path, headers: headers)
        let serialized = try serialize(request, parameters: parameters)
        let body = serialized.body
        return dataTask(with: serialized.request, body: body, options: options).resume()
    }

    /// `GET path`, resumed.
    public func get(
        _ path: String, parameters: Parameters? = nil, headers: HTTPFields = [:], options: RequestOptions = .default
    ) throws(CourierError) -> DataTask {
        try request(.get, path, parameters: parameters, headers: headers, options: options)
    }

    /// `HEAD path`, resumed.
    public func head(
        _ path: String, parameters: Parameters? = nil, headers: HTTPFields = [:], options: RequestOptions = .default
    ) throws(CourierError) -> DataTask {
        try request(.head, path, parameters: parameters, headers: headers, options: options)
    }

    /// `POST path`, resumed.
    public func post(
        _ path: String, parameters: Parameters? = nil, headers: HTTPFields = [:], options: RequestOptions = .default
    ) throws(CourierError) -> DataTask {
        try request(.post, path, parameters: parameters, headers: headers, options: options)
    }

    /// `PUT path`, resumed.
    public func put(
        _ path: String, parameters: Parameters? = nil, headers: HTTPFields = [:], options: RequestOptions = .default
    ) throws(CourierError) -> DataTask {
        try request(.put, path, parameters: parameters, headers: headers, options: options)
    }

    /// `PATCH path`, resumed.
    public func patch(
        _ path: String, parameters: Parameters? = nil, headers: HTTPFields = [:], options: RequestOptions = .default
    ) throws(CourierError) -> DataTask {
        try request(.patch, path, parameters: parameters, headers: headers, options: options)
    }

    /// `DELETE path`, resumed.
    public func delete(
        _ path: String, parameters: Parameters? = nil, headers: HTTPFields = [:], options: RequestOptions = .default
    ) throws(CourierError) -> DataTask {
        try request(.delete, path, parameters: parameters, headers: headers, options: options)
    }
}
