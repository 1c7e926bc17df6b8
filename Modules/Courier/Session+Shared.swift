import CourierCore
import CourierCurl
import CourierRequestSerialization
import CourierResponseSerialization

extension Session {
    /// A process-wide session on a shared `CurlTransport`, with AFNetworking's default request
    /// serializer (parameters in the query for GET, HEAD and DELETE, a form body otherwise) and its
    /// `AFHTTPResponseSerializer` as the response serializer (``DataResponseSerializer``): a handle's
    /// `value()` is the body's bytes when the status is 200–299 and a ``ResponseValidationError``
    /// otherwise. For typed values use the `as:` calls (`get(_:as:)`), which validate and decode.
    ///
    /// ```swift
    /// let response = try await Session.shared.get("https://httpbin.org/get", parameters: ["q": "courier"]).response
    /// ```
    /// Made on first use. Should libcurl fail to start, every call on it fails with that error
    /// rather than the process crashing.
    public static let shared: Session = {
        let transport: any Transport
        do {
            transport = try CurlTransport()
        } catch {
            transport = UnavailableTransport(error: error)
        }
        return Session(
            configuration: SessionConfiguration(
                requestSerializer: HTTPRequestSerializer(),
                responseSerializer: DataResponseSerializer()
            ),
            transport: transport
        )
    }()
}

/// Stands in for a transport that could not start: every exchange fails with its error.
struct UnavailableTransport: Transport {
    let error: any Error

    func send(_ request: HTTPRequest, body: Body?, context: RequestContext) async throws -> Response {
        throw error
    }
}
