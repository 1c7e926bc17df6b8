import CourierCore
import CourierCurl
import HTTPTypes
import Testing

@Suite("Request authority")
struct AuthorityTests {
    /// A hand-built authority holding a path must not make curl connect to one host while a trust
    /// evaluator judges another: it is refused before anything is sent.
    @Test(arguments: ["good.example/x@evil.example", "a b.example", "host?x", "host#x", "host\\x"])
    func malformedAuthoritiesAreRefusedBeforeConnecting(authority: String) async throws {
        let session = Session(transport: try CurlTransport())
        let request = HTTPRequest(method: .get, scheme: "http", authority: authority, path: "/")
        let error = await #expect(throws: CourierError.self) { _ = try await session.send(request) }
        #expect((error?.underlyingError as? TransportError)?.code == .unsupported)
    }
}
