import FoundationEssentials
import HTTPTypes

/// Follows redirects inside the chain, so every hop passes the network interceptors, is reported
/// to listeners, and lands in the response's `history`.
///
/// Rules: 301 and 302 turn POST into GET, 303 turns everything but HEAD into GET (the body is
/// dropped with its `Content-*` headers); 307 and 308 keep method and body, which must be
/// replayable. `Authorization`, `Cookie` and `Proxy-Authorization` are dropped when a hop leaves
/// the origin (scheme, host and port).
struct RedirectStage: Interceptor {
    let policy: RedirectPolicy

    /// Whether this stage follows a response with `code`: 301, 302, 303, 307 and 308. A switch, where a `Set` asked
    /// on every response hashed the code (about 100 instructions per call).
    static func follows(_ code: Int) -> Bool {
        switch code {
        case 301, 302, 303, 307, 308: return true
        default: return false
        }
    }
    /// Bytes of a redirect's own body read and thrown away so the connection can be reused.
    static let drainLimit = 64 * 1024
    /// Fields never carried to another origin.
    static let credentialFields: [HTTPField.Name] = [.authorization, .cookie, .proxyAuthorization]
    /// Fields describing a body, dropped with it.
    static let bodyFields: [HTTPField.Name] = [.contentType, .contentLength, .transferEncoding, .contentEncoding]

    func intercept(
        _ request: HTTPRequest,
        body: Body?,
        context: RequestContext,
        next: InterceptorNext
    ) async throws -> Response {
        try await run(request, body: body, context: context, next: next)
    }

    /// What `intercept` does, on the caller's executor: the chain calls this directly.
    nonisolated(nonsending) func run(
        _ request: HTTPRequest,
        body: Body?,
        context: RequestContext,
        next: InterceptorNext
    ) async throws -> Response {
        let response = try await next(request, body: body, context: context)
        let policy = context.options.redirectPolicy ?? self.policy
        guard Self.isRedirect(response, under: policy) else { return response }
        return try await follow(response, to: request, body: body, policy: policy, context: context, next: next)
    }

    /// Whether `response` is a redirect `policy` follows (it then has a `Location`).
    private static func isRedirect(_ response: Response, under policy: RedirectPolicy) -> Bool {
        policy.maximumRedirects > 0 && follows(response.head.status.code)
            && response.head.headerFields[.location] != nil
    }

    /// Follows the redirects that began with `first`, the answer to `request`. Apart from `intercept`,
    /// whose frame (taken from the task's allocator on every call) then holds only the request and one
    /// response: most calls are not redirected.
    @inline(never)   // its frame is large; a call that is not redirected should not carry it
    nonisolated(nonsending) private func follow(
        _ first: Response,
        to request: HTTPRequest,
        body: Body?,
        policy: RedirectPolicy,
        context: RequestContext,
        next: InterceptorNext
    ) async throws -> Response {
        var request = request
        var body = body
        var history: [RedirectHop] = []
        var pending: Response? = first
        while true {
            var response: Response
            if let first = pending {
                response = first
                pending = nil
            } else {
                response = try await next(request, body: body, context: context)
            }
            let code = response.head.status.code
            guard Self.isRedirect(response, under: policy), let location = Self.location(in: response.head) else {
                response.history = history + response.history
                return response
            }
            let hop = RedirectHop(request: request, response: response.head)
            if let other = Self.locations(in: response.head).first(where: { !$0.utf8.elementsEqual(location.utf8) }) {
                throw RedirectError(reason: .ambiguousLocation, history: history + [hop], location: location, otherLocation: other)
            }
            guard history.count < policy.maximumRedirects else {
                throw RedirectError(
                    reason: .tooManyRedirects, history: history + [hop],
                    limit: policy.maximumRedirects, location: location
                )
            }
            var proposed = try Self.proposedRequest(after: request, response: response.head, location: location, history: history + [hop])
            var keepsBody = proposed.method == request.method && Self.keepsBody(code: code, method: request.method)
            if !keepsBody {
                for name in Self.bodyFields { proposed.headerFields[name] = nil }
            }
            if let hook = policy.hook {
                let proposal = RedirectProposal(request: request, response: response.head, proposedRequest: proposed, history: history)
                switch try await hook(proposal) {
                case .follow: break
                case .followModified(let modified):
                    // A hook that changes the method drops the body, as the status rules do.
                    keepsBody = keepsBody && modified.method == proposed.method
                    proposed = modified
                case .refuse:
                    response.history = history + response.history
                    return response
                }
            }
            if keepsBody, let body, body.iterationBehavior == .single {
                throw RedirectError(reason: .bodyNotReplayable, history: history + [hop])
            }
            await response.body.drain(upTo: Self.drainLimit)
            history.append(hop)
            context.redirecting(from: response.head, to: proposed)
            request = proposed
            if !keepsBody { body = nil }
        }
    }

    /// The first `Location` field as text to resolve (``text(of:)``).
    static func location(in response: HTTPResponse) -> String? {
        response.headerFields.first(where: { $0.name == .location }).map(text(of:))
    }

    /// Every `Location` field as text to resolve (``text(of:)``): a redirect whose fields differ is followed nowhere.
    static func locations(in response: HTTPResponse) -> [String] {
        response.headerFields.filter { $0.name == .location }.map(text(of:))
    }

    /// A `Location` field's value as text. Its bytes that are not UTF-8 (a Latin-1 `é` from an old server) are
    /// percent-encoded as they are, as curl does: read as text, each became U+FFFD, and the request went to a path the
    /// server never named.
    private static func text(of field: HTTPField) -> String {
        field.withUnsafeBytesOfValue { bytes in
            if let text = String(validating: bytes, as: UTF8.self) { return text }
            let hex = Array("0123456789ABCDEF".utf8)
            var escaped: [UInt8] = []
            escaped.reserveCapacity(bytes.count * 3)
            for byte in bytes {
                if byte < 0x80 {
                    escaped.append(byte)
                } else {
                    escaped.append(contentsOf: [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
                }
            }
            return String(decoding: escaped, as: UTF8.self)
        }
    }

    /// Whether a redirect with this code re-sends the method and body unchanged.
    static func keepsBody(code: Int, method: HTTPRequest.Method) -> Bool {
        switch code {
        case 307, 308: return true
        case 303: return false
        default: return method != .post
        }
    }

    /// The request a redirect points to, before the hook sees it.
    static func proposedRequest(
        after request: HTTPRequest,
        response: HTTPResponse,
        location: String,
        history: [RedirectHop]
    ) throws -> HTTPRequest {
        guard let current = request.url,
              let target = URL(string: location, relativeTo: current)?.absoluteURL,
              let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = target.host, !host.isEmpty   // `http:///x` has a scheme but nobody to go to
        else {
            throw RedirectError(reason: .invalidLocation, history: history, location: location)
        }
        let code = response.status.code
        var method = request.method
        if code == 303 && method != .head { method = .get }
        if (code == 301 || code == 302) && method == .post { method = .get }
        var proposed = HTTPRequest(method: method, url: target, headerFields: request.headerFields)
        if !Origin(current).matches(Origin(target)) {
            for name in credentialFields { proposed.headerFields[name] = nil }
        }
        return proposed
    }
}

/// Scheme, host and port: what decides whether credentials may follow a redirect.
struct Origin: Equatable {
    let scheme: String
    let host: String
    let port: Int

    init(_ url: URL) {
        scheme = url.scheme?.lowercased() ?? ""
        host = url.host?.lowercased() ?? ""
        port = url.port ?? (scheme == "https" ? 443 : 80)
    }

    func matches(_ other: Origin) -> Bool { self == other }
}
