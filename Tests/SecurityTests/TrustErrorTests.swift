import CourierCore
@testable import CourierSecurity
import Foundation
import Testing

@Suite("What a refusal says")
struct TrustErrorTests {
    @Test("A pin mismatch names the host and lists the chain's real pins")
    func pinMismatch() throws {
        let policy = SecurityPolicy.testing(.publicKey, pins: [Fixture.ssCN])
        let trust = ServerTrust(host: "127.0.0.1", certificateChain: Fixture.chainLIR)
        let error = #expect(throws: TrustError.self) { try policy.evaluate(trust) }
        let leafPin = try #require(Fixture.certificate("leaf").publicKeyPin)
        let intermediatePin = try #require(Fixture.certificate("intermediate").publicKeyPin)
        #expect(error?.host == "127.0.0.1")
        #expect(error?.serverTrust == trust)
        #expect(error?.reason.contains("no public key of the chain is pinned") == true)
        #expect(error?.reason.contains("\(leafPin) (/O=Courier Tests/CN=localhost)") == true)
        #expect(error?.reason.contains("\(intermediatePin)") == true)
        #expect(error?.description.hasPrefix("The certificate for this server is invalid. You might be connecting to a server that is pretending to be “127.0.0.1”") == true)

        let certificate = SecurityPolicy.testing(.certificate, pins: [Fixture.ssCN])
        let certificateError = #expect(throws: TrustError.self) { try certificate.evaluate(trust) }
        #expect(certificateError?.reason.contains("\(leafPin)") == true)
    }

    @Test("An untrusted chain says why, in OpenSSL's words")
    func untrusted() {
        let error = #expect(throws: TrustError.self) {
            try SecurityPolicy.testing().evaluate(ServerTrust(host: "localhost", certificateChain: Fixture.chainL2I2R2))
        }
        #expect(error?.reason.contains("not trusted by the configured anchors: certificate verify failed") == true)
        let expired = #expect(throws: TrustError.self) {
            try SecurityPolicy.testing().evaluate(ServerTrust(host: "localhost", certificateChain: Fixture.chainLXIR))
        }
        #expect(expired?.reason.contains("certificate has expired") == true)
        let name = #expect(throws: TrustError.self) {
            try SecurityPolicy.testing().evaluate(ServerTrust(host: "apple.com", certificateChain: Fixture.chainLIR))
        }
        #expect(name?.reason.contains("the certificate does not name apple.com") == true)
    }

    @Test("The chain's pins for a hint, leaf first")
    func pinDescription() throws {
        let text = SecurityPolicy.pinDescription(ofChain: [Fixture.L, Fixture.I])
        let leafPin = try #require(Fixture.certificate("leaf").publicKeyPin)
        #expect(text.hasPrefix("\(leafPin) (/O=Courier Tests/CN=localhost), sha256/"))
        #expect(SecurityPolicy.pinDescription(ofChain: []) == "")
    }

    @Test("Garbage instead of a chain is refused, never trusted")
    func garbage() {
        for chain in [[], [Array("junk".utf8)], [Fixture.L, Array("junk".utf8)]] {
            for policy in [SecurityPolicy.testing(), .testing(allowInvalid: true, validatesDomainName: false),
                           .testing(.publicKey, pins: [Fixture.L], allowInvalid: true)] {
                #expect(!policy.evaluate(chain: chain, domain: nil))
            }
        }
    }
}
