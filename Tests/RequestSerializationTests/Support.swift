import CourierCore
import FoundationEssentials
import HTTPTypes
import Testing

/// A request for an absolute URL such as `http://example.com/p?a=1`.
func makeRequest(_ method: HTTPRequest.Method, _ url: String, headers: HTTPFields = [:]) throws -> HTTPRequest {
    let parsed = try #require(URL(string: url))
    return HTTPRequest(method: method, url: parsed, headerFields: headers)
}

/// The body as UTF-8 text, `nil` when there is none.
func text(of body: Body?) async throws -> String? {
    guard let body else { return nil }
    return String(decoding: try await body.collect(upTo: 1 << 20), as: UTF8.self)
}

/// An error a test throws on purpose.
struct MarkerError: Error, Equatable {
    let id: Int
}

/// A transport for sessions that must never send anything.
struct RefusingTransport: Transport {
    func send(_ request: HTTPRequest, body: Body?, context: RequestContext) async throws -> Response {
        throw MarkerError(id: -1)
    }
}

extension HTTPField.Name {
    static let xFoo = HTTPField.Name("X-Foo")!
    static let xBar = HTTPField.Name("X-Bar")!
}
