import CourierCore
import CourierCurl
import HTTPTypes
import Testing

@Suite("Request targets")
struct AuthorityTests {
    static let transport: CurlTransport = { do { return try CurlTransport() } catch { fatalError("\(error)") } }()

    private func refusal(_ request: HTTPRequest) async -> InvalidRequestError? {
        let session = Session(transport: Self.transport)
        let error = await #expect(throws: CourierError.self) { _ = try await session.send(request) }
        return error?.underlyingError as? InvalidRequestError
    }

    /// A hand-built authority holding a path must not make curl connect to one host while a trust
    /// evaluator judges another: it is refused before anything is sent.
    @Test(arguments: [
        "good.example/x@evil.example", "a b.example", "host?x", "host#x", "host\\x",
        "", ":8080", "user:secret@127.0.0.1", "@127.0.0.1", "127.0.0.1:99999", "127.0.0.1:8o", "::1", "[::1", "[::1]x",
    ])
    func malformedAuthoritiesAreRefusedBeforeConnecting(authority: String) async throws {
        let request = HTTPRequest(method: .get, scheme: "http", authority: authority, path: "/")
        let error = await refusal(request)
        #expect(error?.reason == .invalidAuthority, "\(authority): \(String(describing: error))")
        #expect(error?.input == authority)
    }

    /// libcurl accepts each of these and reads part of the path as the host (`@evil/x` makes it connect
    /// to "evil"), or sends a request line that is not one.
    @Test(arguments: ["", "x", "@evil.example/x", ".evil.example/", "*", "/a b", "/a\r\nX: y", "/a#frag", "/a\tb"])
    func pathsThatDoNotStartWithASlashAreRefused(path: String) async throws {
        let request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:9", path: path)
        let error = await refusal(request)
        #expect(error?.reason == .invalidPath, "\(path.debugDescription): \(String(describing: error))")
    }

    @Test func theAsteriskIsForOptionsOnly() async throws {
        let options = HTTPRequest(method: .options, scheme: "http", authority: "127.0.0.1:9", path: "*")
        let session = Session(transport: Self.transport)
        // Port 9 (discard) refuses the connection: the target itself passed.
        let error = await #expect(throws: CourierError.self) { _ = try await session.send(options) }
        #expect(error?.underlyingError is TransportError)
    }

    @Test(arguments: ["127.0.0.1", "127.0.0.1:80", "[::1]", "[::1]:8443", "example.com:", "EXAMPLE.com"])
    func wellFormedAuthoritiesPass(authority: String) throws {
        let request = HTTPRequest(method: .get, scheme: "http", authority: authority, path: "/x?y=1")
        try RequestValidationProbe.checkTarget(request)
    }
}
