import HTTPTypes

/// One redirect that was followed: the request that was sent and the 3xx response it got.
public struct RedirectHop: Sendable, Hashable {
    /// The request that received the redirect.
    public var request: HTTPRequest
    /// The redirect response (301, 302, 303, 307 or 308).
    public var response: HTTPResponse

    /// A hop.
    public init(request: HTTPRequest, response: HTTPResponse) {
        self.request = request
        self.response = response
    }
}
