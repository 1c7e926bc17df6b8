import CCurl
import CourierCore
@testable import CourierCurl
import Testing

/// The pieces of the handshake hook that need no server (the live tests are in
/// Integration/Tests/IntegrationTests/SecurityTests.swift).
@Suite("Trust hook")
struct TrustHookTests {
    @Test func theHostIsTheAuthorityWithoutPortBracketsOrUser() {
        #expect(TrustHook.host(ofAuthority: "example.com") == "example.com")
        #expect(TrustHook.host(ofAuthority: "example.com:8443") == "example.com")
        #expect(TrustHook.host(ofAuthority: "127.0.0.1:18083") == "127.0.0.1")
        #expect(TrustHook.host(ofAuthority: "[::1]:8443") == "::1")
        #expect(TrustHook.host(ofAuthority: "[::1]") == "::1")
        #expect(TrustHook.host(ofAuthority: "user:secret@example.com:1") == "example.com")
    }

    @Test func thisLibcurlUsesOpenSSLSoEvaluatorsCanRun() {
        // Debian's libcurl4-openssl-dev: the hook finds OpenSSL in the process.
        #expect(OpenSSLRuntime.shared != nil)
        #expect(CurlTransport.libcurlVersion.contains("OpenSSL/"))
    }

    @Test func aClientCertificateProblemIsATLSFailure() {
        #expect(CurlErrors.kind(of: CURLE_SSL_CLIENTCERT) == .tlsFailure)
        #expect(CurlErrors.kind(of: CURLE_SSL_CERTPROBLEM) == .tlsFailure)
    }
}
