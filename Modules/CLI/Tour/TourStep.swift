import CourierCore
import CourierCurl
import Foundation
import HTTPTypes

/// One step of `courier tour`: a heading, what it shows, the `courier` command that does the
/// same by hand, and the code that runs it.
struct TourStep {
    /// The heading, e.g. `Query parameters`.
    var title: String
    /// One or two sentences on what the step does and which module does it.
    var explanation: String
    /// The equivalent command line, when there is one.
    var command: String?
    /// Runs the step; throwing marks it failed.
    var run: (TourContext) async throws -> Void
}

/// What every step may use: the servers, a shared transport, and a narrator.
struct TourContext {
    /// The httpbin's base URL, without a trailing slash.
    let server: String
    /// The HTTPS server and the CA that signed it, when given.
    let tls: (server: String, caFile: String)?
    /// The streaming server (server-sent events), when given.
    let sse: String?
    /// One transport for every step: connections are reused across steps.
    let transport: CurlTransport
    let narrator: TourNarrator

    /// A session on the shared transport with `baseURL` = the httpbin.
    func session(baseURL: String? = nil, _ configure: (inout SessionConfiguration) -> Void = { _ in }) -> Session {
        var configuration = SessionConfiguration(baseURL: URL(string: baseURL ?? server))
        configuration.timeouts = Timeouts(connect: .seconds(10), request: .seconds(30))
        configure(&configuration)
        return Session(configuration: configuration, transport: transport)
    }

    /// A GET request for `path` on the httpbin.
    func request(_ path: String) throws -> HTTPRequest {
        guard let url = URL(string: server + path) else { throw TourFailure("bad URL \(server + path)") }
        return HTTPRequest(method: .get, url: url)
    }

    /// Prints an indented line of narration.
    func say(_ text: String) { narrator.detail(text) }
}

/// A step's check did not hold.
struct TourFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension TourContext {
    /// The canonical compact JSON (sorted keys) of `key` in a JSON object body, for exact checks.
    static func canonicalJSON(of key: String, in data: Data) throws -> String {
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any], let value = object[key] else {
            throw TourFailure("the response has no \"\(key)\": \(String(decoding: data.prefix(200), as: UTF8.self))")
        }
        let bytes = try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `200 OK`, or `200` when the response has no reason phrase (HTTP/2).
    static func status(_ response: HTTPResponse) -> String {
        let reason = response.status.reasonPhrase
        return reason.isEmpty ? "\(response.status.code)" : "\(response.status.code) \(reason)"
    }

    /// Throws unless `actual` is `expected`.
    static func expect(_ actual: String, equals expected: String, _ what: String) throws {
        guard actual == expected else {
            throw TourFailure("\(what) is \(actual), expected \(expected)")
        }
    }
}
