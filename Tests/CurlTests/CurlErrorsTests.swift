import CCurl
import CourierCore
@testable import CourierCurl
import Testing

@Suite("curl error mapping")
struct CurlErrorsTests {
    @Test func codesMapToTheirKinds() {
        #expect(CurlErrors.kind(of: CURLE_OPERATION_TIMEDOUT) == .timedOut)
        #expect(CurlErrors.kind(of: CURLE_COULDNT_RESOLVE_HOST) == .nameResolution)
        #expect(CurlErrors.kind(of: CURLE_COULDNT_CONNECT) == .cannotConnect)
        #expect(CurlErrors.kind(of: CURLE_PEER_FAILED_VERIFICATION) == .tlsFailure)
        #expect(CurlErrors.kind(of: CURLE_SSL_CONNECT_ERROR) == .tlsFailure)
        #expect(CurlErrors.kind(of: CURLE_UNSUPPORTED_PROTOCOL) == .malformedResponse)
        #expect(CurlErrors.kind(of: CURLE_PARTIAL_FILE) == .truncatedBody)
        #expect(CurlErrors.kind(of: CURLE_RECV_ERROR) == .connectionLost)
        #expect(CurlErrors.kind(of: CURLE_GOT_NOTHING) == .connectionLost)
        #expect(CurlErrors.kind(of: CURLE_SEND_ERROR) == .sendFailed)
        #expect(CurlErrors.kind(of: CURLE_FTP_WEIRD_PASV_REPLY) == .other)
    }

    @Test func errorsKeepCurlsCodeAndBothMessages() {
        let error = CurlErrors.transportError(for: CURLE_COULDNT_CONNECT, detail: "Failed to connect to 127.0.0.1 port 9")
        #expect(error.underlyingCode == 7)
        #expect(error.message == "Couldn't connect to server: Failed to connect to 127.0.0.1 port 9")
        #expect(CurlErrors.transportError(for: CURLE_OPERATION_TIMEDOUT, detail: "").message == "Timeout was reached")
        let repeated = "Failed to connect to 127.0.0.1 port 1 after 0 ms: Couldn't connect to server"
        #expect(CurlErrors.transportError(for: CURLE_COULDNT_CONNECT, detail: repeated).message == repeated)
    }

    @Test func httpVersionsAreNamed() {
        #expect(CurlMetrics.httpVersion(2) == "HTTP/1.1")
        #expect(CurlMetrics.httpVersion(3) == "HTTP/2")
        #expect(CurlMetrics.httpVersion(0) == nil)
    }
}
