import HTTPTypes
import CourierCore
@testable import CourierSecurity
import Foundation
import Testing

/// Checklist E of behaviour-spec §4, offline: `evaluate(chain, domain)` with {R} as system trust.
@Suite("Checklist E: SecurityPolicy decisions")
struct ChecklistETests {
    typealias F = Fixture

    @Test("70: the default policy is AFNetworking's defaultPolicy")
    func item70() {
        let policy = SecurityPolicy.default
        #expect(policy.pinningMode == .none)
        #expect(policy.allowInvalidCertificates == false)
        #expect(policy.validatesDomainName == true)
        #expect(policy.pinnedCertificates.isEmpty)
        #expect(policy.pinnedPublicKeys.isEmpty)
        #expect(policy.trustAnchors == .system)
    }

    @Test("71: default policy and L-I-R with R trusted: nil and localhost pass, other names fail")
    func item71() {
        let policy = SecurityPolicy.testing()
        #expect(policy.evaluate(chain: F.chainLIR, domain: nil))
        #expect(policy.evaluate(chain: F.chainLIR, domain: "localhost"))
        #expect(policy.evaluate(chain: F.chainLIR, domain: "127.0.0.1"))
        #expect(!policy.evaluate(chain: F.chainLIR, domain: "apple.com"))
        #expect(!policy.evaluate(chain: F.chainLIR, domain: "invalid.org"))
    }

    @Test("72: the default policy refuses self-signed certificates")
    func item72() {
        let policy = SecurityPolicy.testing()
        #expect(!policy.evaluate(chain: [F.ssND], domain: nil))
        #expect(!policy.evaluate(chain: [F.ssSAN], domain: nil))
    }

    @Test("73: no pinning, validatesDomainName off: any name passes on a valid chain")
    func item73() {
        let policy = SecurityPolicy.testing(validatesDomainName: false)
        #expect(policy.evaluate(chain: F.chainLIR, domain: "invalid.org"))
    }

    @Test("74: no pinning, allowInvalid: a self-signed certificate passes without a name, or with the name check off")
    func item74() {
        #expect(SecurityPolicy.testing(allowInvalid: true).evaluate(chain: [F.ssSAN], domain: nil))
        #expect(SecurityPolicy.testing(allowInvalid: true, validatesDomainName: false).evaluate(chain: [F.ssSAN], domain: "foobar.com"))
    }

    @Test("75: R1, a name checked on invalid certificates without pinning, refuses")
    func item75() {
        #expect(!SecurityPolicy.testing(.none, pins: [F.ssSAN], allowInvalid: true).evaluate(chain: [F.ssSAN], domain: "foobar.com"))
        #expect(!SecurityPolicy.testing(.none, pins: [], allowInvalid: true).evaluate(chain: [F.ssSAN], domain: "foobar.com"))
        #expect(!SecurityPolicy.testing(.publicKey, pins: [], allowInvalid: true).evaluate(chain: [F.ssSAN], domain: "foobar.com"))
        let policy = SecurityPolicy.testing(.none, allowInvalid: true)
        #expect(throws: TrustError.self) { try policy.evaluate(ServerTrust(host: "foobar.com", certificateChain: [F.ssSAN])) }
    }

    @Test("76: pinning L: nil and localhost pass, another name fails", arguments: [SecurityPolicy.PinningMode.publicKey, .certificate])
    func item76(mode: SecurityPolicy.PinningMode) {
        let policy = SecurityPolicy.testing(mode, pins: [F.L])
        #expect(policy.evaluate(chain: F.chainLIR, domain: nil))
        #expect(policy.evaluate(chain: F.chainLIR, domain: "localhost"))
        #expect(!policy.evaluate(chain: F.chainLIR, domain: "invaliddomainname.com"))
    }

    @Test("77: pinning the intermediate, the root, all three, or the leaf with an unrelated certificate", arguments: [SecurityPolicy.PinningMode.publicKey, .certificate])
    func item77(mode: SecurityPolicy.PinningMode) {
        for pins in [[F.I], [F.R], [F.L, F.I, F.R], [F.L, F.ssCN]] {
            let policy = SecurityPolicy.testing(mode, pins: pins)
            #expect(policy.evaluate(chain: F.chainLIR, domain: nil))
            #expect(policy.evaluate(chain: F.chainLIR, domain: "localhost"))
        }
        // The server usually does not send its root: a pinned root still anchors the path.
        #expect(SecurityPolicy.testing(mode, pins: [F.R]).evaluate(chain: [F.L, F.I], domain: "localhost"))
    }

    @Test("78: pinning without pins refuses", arguments: [SecurityPolicy.PinningMode.publicKey, .certificate])
    func item78(mode: SecurityPolicy.PinningMode) {
        #expect(!SecurityPolicy.testing(mode, pins: []).evaluate(chain: F.chainLIR, domain: nil))
    }

    @Test("79: pins of one chain refuse another", arguments: [SecurityPolicy.PinningMode.publicKey, .certificate])
    func item79(mode: SecurityPolicy.PinningMode) {
        #expect(!SecurityPolicy.testing(mode, pins: [F.L]).evaluate(chain: F.chainL2I2R2, domain: nil))
        #expect(!SecurityPolicy.testing(mode, pins: [F.L, F.ssCN]).evaluate(chain: F.chainL2I2R2, domain: nil))
        // Even with the unrelated chain's root trusted: the pins decide.
        var trusted = SecurityPolicy.testing(mode, pins: [F.L])
        trusted.trustAnchors = .certificates([Certificate(derBytes: F.R2)])
        #expect(!trusted.evaluate(chain: F.chainL2I2R2, domain: nil))
    }

    @Test("80: public-key pinning with allowInvalid trusts a pinned self-signed key")
    func item80() {
        #expect(SecurityPolicy.testing(.publicKey, pins: [F.ssCN], allowInvalid: true).evaluate(chain: [F.ssCN], domain: "foobar.com"))
        #expect(SecurityPolicy.testing(.publicKey, pins: [F.ssSAN], allowInvalid: true).evaluate(chain: [F.ssSAN], domain: "foobar.com"))
    }

    @Test("81: certificate pinning with allowInvalid still checks the name against the pinned anchor")
    func item81() {
        #expect(!SecurityPolicy.testing(.certificate, pins: [F.ssND], allowInvalid: true).evaluate(chain: [F.ssND], domain: "foobar.com"))
        // The counterpart: SS-SAN names foobar.com, so pinning it passes.
        #expect(SecurityPolicy.testing(.certificate, pins: [F.ssSAN], allowInvalid: true).evaluate(chain: [F.ssSAN], domain: "foobar.com"))
    }

    @Test("82: certificate pinning without allowInvalid checks system trust first")
    func item82() {
        #expect(!SecurityPolicy.testing(.certificate, pins: [F.ssSAN]).evaluate(chain: [F.ssSAN], domain: "foobar.com"))
    }

    @Test("83: public-key pinning with allowInvalid checks no name")
    func item83() {
        #expect(SecurityPolicy.testing(.publicKey, pins: [F.ssCN], allowInvalid: true).evaluate(chain: [F.ssCN], domain: "wrong.example"))
    }

    @Test("84: an expired leaf fails certificate pinning (dates checked) and passes public-key pinning with allowInvalid")
    func item84() {
        #expect(!SecurityPolicy.testing(.certificate, pins: [F.I], allowInvalid: true).evaluate(chain: F.chainLXIR, domain: nil))
        #expect(SecurityPolicy.testing(.publicKey, pins: [F.LX], allowInvalid: true).evaluate(chain: F.chainLXIR, domain: nil))
        // And the default policy refuses it.
        #expect(!SecurityPolicy.testing().evaluate(chain: F.chainLXIR, domain: "localhost"))
    }

    @Test("85: a pinned blob that is not a certificate is ignored", arguments: [SecurityPolicy.PinningMode.publicKey, .certificate])
    func item85(mode: SecurityPolicy.PinningMode) {
        let blob = Array("not a certificate".utf8)
        #expect(SecurityPolicy.testing(mode, pins: [blob, F.L]).evaluate(chain: F.chainLIR, domain: nil))
        #expect(!SecurityPolicy.testing(mode, pins: [blob]).evaluate(chain: F.chainLIR, domain: nil))
    }

    @Test("86: a policy is a value: a copy and a Codable round trip keep every field")
    func item86() throws {
        let policy = SecurityPolicy(
            pinningMode: .certificate,
            pinnedCertificates: [Fixture.certificate("leaf")],
            pinnedPublicKeys: [try #require(Fixture.certificate("intermediate").publicKeyPin)],
            allowInvalidCertificates: true,
            validatesDomainName: false,
            trustAnchors: Fixture.anchorsR
        )
        var copy = policy
        #expect(copy == policy)
        copy.pinnedCertificates = []
        copy.allowInvalidCertificates = false
        #expect(policy.pinnedCertificates.count == 1 && policy.allowInvalidCertificates)

        let data = try JSONEncoder().encode(policy)
        let decoded = try JSONDecoder().decode(SecurityPolicy.self, from: data)
        #expect(decoded == policy)
        #expect(decoded.pinningMode == .certificate)
        #expect(decoded.allowInvalidCertificates == true)
        #expect(decoded.validatesDomainName == false)
        #expect(decoded.pinnedCertificates == [Fixture.certificate("leaf")])
        // The system's anchors are the default, and absent from the encoding.
        let system = try JSONDecoder().decode(SecurityPolicy.self, from: JSONEncoder().encode(SecurityPolicy.default))
        #expect(system == .default)
        // The same policy always encodes to the same bytes.
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(try encoder.encode(policy) == encoder.encode(decoded))
    }

    @Test("87: a pinning policy needs an https base URL, with AFNetworking's reason")
    func item87() throws {
        for mode in [SecurityPolicy.PinningMode.certificate, .publicKey] {
            let policy = SecurityPolicy(pinningMode: mode)
            let reason = "A security policy configured with `\(mode == .certificate ? "AFSSLPinningModeCertificate" : "AFSSLPinningModePublicKey")` can only be applied on a manager with a secure base URL (i.e. https)"
            for base in [URL(string: "http://example.com/"), nil] {
                let error = #expect(throws: SecurityPolicyError.self) {
                    try Session(configuration: SessionConfiguration(baseURL: base), transport: NoTransport(), securityPolicy: policy)
                }
                #expect(error?.name == "Invalid Security Policy")
                #expect(error?.reason == reason)
            }
            let session = try Session(configuration: SessionConfiguration(baseURL: URL(string: "https://example.com/")),
                                      transport: NoTransport(), securityPolicy: policy)
            #expect(session.configuration.trustEvaluator is SecurityPolicy)
        }
        _ = try Session(configuration: SessionConfiguration(baseURL: URL(string: "http://example.com/")),
                        transport: NoTransport(), securityPolicy: .default)
        _ = try Session(transport: NoTransport(), securityPolicy: .default)
    }

    @Test("90: TrustError keeps the trust and the URL it was given, and is always -1202")
    func item90() throws {
        let trust = ServerTrust(host: "127.0.0.1", certificateChain: F.chainLIR)
        let url = try #require(URL(string: "https://127.0.0.1:18083/get"))
        let both = TrustError.serverTrustError(trust, url: url)
        #expect(both.serverTrust == trust && both.failingURL == url && both.failingURLString == url.absoluteString)
        let noTrust = TrustError.serverTrustError(nil, url: url)
        #expect(noTrust.serverTrust == nil && noTrust.failingURL == url)
        let noURL = TrustError.serverTrustError(trust, url: nil)
        #expect(noURL.serverTrust == trust && noURL.failingURL == nil && noURL.failingURLString == nil)
        let neither = TrustError.serverTrustError(nil, url: nil)
        #expect(neither.serverTrust == nil && neither.failingURL == nil)
        for error in [both, noTrust, noURL, neither] { #expect(error.code == -1202 && TrustError.code == -1202) }
        #expect(both.message == "The certificate for this server is invalid. You might be connecting to a server that is pretending to be “127.0.0.1” which could put your confidential information at risk.")
    }
}

/// A transport for sessions that never send.
struct NoTransport: Transport {
    func send(_ request: HTTPRequest, body: Body?, context: RequestContext) async throws -> Response {
        throw TransportError(.unsupported, message: "offline")
    }
}

/// Found in review: a pinned certificate appended to a chain it is not part of must not lend its
/// key to public-key pinning.
@Suite("Public-key pins need the real chain")
struct AppendedPinTests {
    @Test func appendedIntermediateDoesNotSatisfyAKeyPinOnAValidChain() {
        // Both roots are trusted; the server's own chain is L2-I2-R2, with I (pinned) appended.
        let policy = SecurityPolicy(
            pinningMode: .publicKey,
            pinnedCertificates: [Certificate(derBytes: Fixture.I)],
            trustAnchors: .certificates([Fixture.certificate("root"), Fixture.certificate("root2")])
        )
        #expect(policy.evaluate(chain: Fixture.chainL2I2R2, domain: "other.test") == false)
        #expect(policy.evaluate(chain: Fixture.chainL2I2R2 + [Fixture.I], domain: "other.test") == false)
        #expect(policy.evaluate(chain: Fixture.chainLIR, domain: "localhost"))
    }

    @Test func appendedIntermediateDoesNotSatisfyAKeyPinWhenInvalidCertificatesAreAllowed() {
        let policy = SecurityPolicy.testing(.publicKey, pins: [Fixture.I], allowInvalid: true, validatesDomainName: false)
        #expect(policy.evaluate(chain: [Fixture.ssCN, Fixture.I], domain: nil) == false)
        #expect(policy.evaluate(chain: [Fixture.L, Fixture.I], domain: nil))
        #expect(policy.evaluate(chain: [Fixture.L, Fixture.ssCN, Fixture.I, Fixture.R], domain: nil))
    }
}
