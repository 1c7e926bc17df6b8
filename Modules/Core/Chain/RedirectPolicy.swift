import HTTPTypes

/// How a session follows redirects: how many, and a hook that sees every hop.
///
/// ```swift
/// var policy = RedirectPolicy(maximumRedirects: 5)
/// policy.hook = { proposal in
///     proposal.proposedRequest.authority == "api.example.com" ? .follow : .refuse
/// }
/// ```
public struct RedirectPolicy: Sendable {
    /// How many redirects to follow; past it the call fails with
    /// ``RedirectError/Reason/tooManyRedirects``. `0` follows none and returns the 3xx response.
    public var maximumRedirects: Int

    /// Decides about each hop, like AFNetworking's redirect block: follow as proposed, follow a
    /// modified request, or refuse (the 3xx response is then returned as the result).
    public var hook: (@Sendable (RedirectProposal) async throws -> RedirectDecision)?

    /// A policy following up to `maximumRedirects` hops.
    public init(
        maximumRedirects: Int = 10,
        hook: (@Sendable (RedirectProposal) async throws -> RedirectDecision)? = nil
    ) {
        self.maximumRedirects = max(0, maximumRedirects)
        self.hook = hook
    }

    /// Follows up to 10 redirects.
    public static let follow = RedirectPolicy()
    /// Follows none: 3xx responses are returned as they are.
    public static let doNotFollow = RedirectPolicy(maximumRedirects: 0)
}

/// A redirect the stage is about to follow.
public struct RedirectProposal: Sendable {
    /// The request that received the redirect.
    public var request: HTTPRequest
    /// The 3xx response.
    public var response: HTTPResponse
    /// The request the stage would send next, with the method and body rules and the
    /// cross-origin credential stripping already applied.
    public var proposedRequest: HTTPRequest
    /// The hops followed before this one.
    public var history: [RedirectHop]
}

/// What to do with a redirect.
public enum RedirectDecision: Sendable {
    /// Follow the proposed request.
    case follow
    /// Follow this request instead.
    case followModified(HTTPRequest)
    /// Do not follow; the 3xx response becomes the result.
    case refuse
}
