import FoundationEssentials
import HTTPTypes

/// Answers HTTP authentication challenges (a 401 with `WWW-Authenticate`), like AFNetworking's
/// session-level authentication-challenge block.
///
/// ```swift
/// let challenge = ChallengeInterceptor { challenge in
///     challenge.realm == "Fake Realm" ? .useCredential(user: "user", password: "passwd") : .performDefaultHandling
/// }
/// let configuration = SessionConfiguration(interceptors: [challenge])
/// ```
/// With `.useCredential` the request is sent again with HTTP Basic credentials (the only scheme
/// answered here); `.performDefaultHandling` keeps the 401 as the result; `.fail` ends the call
/// with your error. A request whose body can be read only once is not sent again: the 401 stays.
public struct ChallengeInterceptor: Interceptor {
    /// What the handler decides.
    public enum Disposition: Sendable {
        /// Send the request again with these Basic credentials.
        case useCredential(user: String, password: String)
        /// Keep the 401 response as the result.
        case performDefaultHandling
        /// End the call with this error.
        case fail(any Error)
    }

    /// Decides what to do about one challenge.
    public typealias Handler = @Sendable (AuthenticationChallenge) async throws -> Disposition

    let handler: Handler
    let maximumAttempts: Int

    /// An interceptor asking `handler`, at most `maximumAttempts` times per call (so a wrong
    /// password ends with the server's 401 instead of a loop).
    public init(maximumAttempts: Int = 3, handler: @escaping Handler) {
        self.handler = handler
        self.maximumAttempts = max(1, maximumAttempts)
    }

    public func intercept(_ request: HTTPRequest, body: Body?, context: RequestContext, next: InterceptorNext) async throws -> Response {
        var request = request
        var failures = 0
        while true {
            let response = try await next(request, body: body, context: context)
            guard response.head.status.code == 401,
                  let header = response.head.headerFields[.wwwAuthenticate],
                  failures < maximumAttempts
            else { return response }
            let challenge = AuthenticationChallenge(request: request, response: response.head, header: header, previousFailureCount: failures)
            switch try await handler(challenge) {
            case .performDefaultHandling:
                return response
            case .fail(let error):
                throw error
            case .useCredential(let user, let password):
                guard challenge.scheme.lowercased() == "basic", body?.iterationBehavior != .single else { return response }
                request.headerFields[.authorization] = BasicCredentials.fieldValue(user: user, password: password)
                await response.body.drain(upTo: 64 * 1024)
                failures += 1
            }
        }
    }
}

/// A 401's challenge, as a ``ChallengeInterceptor`` handler sees it.
public struct AuthenticationChallenge: Sendable {
    /// The request that was refused.
    public var request: HTTPRequest
    /// The 401 response head.
    public var response: HTTPResponse
    /// The scheme asked for, e.g. `Basic` or `Digest`.
    public var scheme: String
    /// The `realm` parameter, when given.
    public var realm: String?
    /// How many credentials this call already tried (AFNetworking's `previousFailureCount`).
    public var previousFailureCount: Int

    init(request: HTTPRequest, response: HTTPResponse, header: String, previousFailureCount: Int) {
        self.request = request
        self.response = response
        self.previousFailureCount = previousFailureCount
        let trimmed = header.drop { $0 == " " }
        scheme = String(trimmed.prefix { $0 != " " })
        realm = Self.parameter("realm", in: trimmed.dropFirst(scheme.count))
    }

    /// `name="value"` or `name=value` from a challenge's comma-separated parameters.
    package static func parameter(_ name: String, in text: Substring) -> String? {
        for part in text.split(separator: ",") {
            let pair = part.drop { $0 == " " }
            guard let equals = pair.firstIndex(of: "="), pair[..<equals].lowercased() == name else { continue }
            let value = pair[pair.index(after: equals)...].drop { $0 == " " }
            if value.first == "\"" { return String(value.dropFirst().prefix { $0 != "\"" }) }
            return String(value.prefix { $0 != " " })
        }
        return nil
    }
}
