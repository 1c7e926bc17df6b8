import ArgumentParser
@testable import CourierCLI
import CourierCore
import CourierSecurity
import Foundation
import Testing

/// `--cacert`, `--pin-cert`, `--pin-key`, `--insecure`, `--no-verify-host`, `--cert`/`--key`/`--pass`, and
/// exit status 7 with the pins hint (CLI.md).
@Suite("TLS options")
struct TrustOptionsTests {
    /// CourierSecurity's committed fixtures (Tests/SecurityTests/Fixtures/README.md).
    static func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("SecurityTests/Fixtures/\(name)").path
    }

    static func der(_ name: String) throws -> [UInt8] {
        try #require(try Certificate.certificates(contentsOfFile: fixture(name)).first).derBytes
    }

    @Test func withoutOptionsTheDefaultPolicyOnTheSystemStore() throws {
        let policy = try TrustOptions().policy()
        #expect(policy == .default)
        #expect(TrustOptions().insecureWarning == nil)
        #expect(try TrustOptions().clientCertificate() == nil)
    }

    @Test func cacertMakesTheFileTheAnchors() throws {
        let policy = try TrustOptions(caFile: Self.fixture("root.pem")).policy()
        #expect(policy.trustAnchors == .certificates([Certificate(derBytes: try Self.der("root.pem"))]))
        #expect(policy.evaluate(chain: [try Self.der("leaf.pem"), try Self.der("intermediate.pem")], domain: "127.0.0.1"))
    }

    @Test func pinCertPinsCertificatesAndPinKeyPinsKeys() throws {
        let certificate = try TrustOptions(pinnedCertificateFiles: [Self.fixture("leaf.pem"), Self.fixture("pins/leaf.cer")]).policy()
        #expect(certificate.pinningMode == .certificate)
        #expect(certificate.pinnedCertificates == [Certificate(derBytes: try Self.der("leaf.pem"))])

        let pin = try #require(Certificate(derBytes: try Self.der("intermediate.pem")).publicKeyPin)
        let key = try TrustOptions(pinnedKeys: [pin.description, Self.fixture("root.pem")]).policy()
        #expect(key.pinningMode == .publicKey)
        #expect(key.pinnedPublicKeys == [pin, try #require(Certificate(derBytes: try Self.der("root.pem")).publicKeyPin)])
    }

    @Test func badPinsAndFilesAreErrorsBeforeSending() {
        #expect(throws: CLIError.self) { try TrustOptions(pinnedKeys: ["sha256/short"]).policy() }
        #expect(throws: CLIError.self) { try TrustOptions(pinnedKeys: [Self.fixture("missing.pem")]).policy() }
        #expect(throws: CLIError.self) { try TrustOptions(pinnedCertificateFiles: [Self.fixture("pins/README.txt")]).policy() }
        #expect(throws: CLIError.self) { try TrustOptions(caFile: Self.fixture("client.key")).policy() }
        let both = #expect(throws: CLIError.self) {
            try TrustOptions(pinnedCertificateFiles: [Self.fixture("leaf.pem")], pinnedKeys: [Self.fixture("leaf.pem")]).policy()
        }
        #expect(both?.message.contains("exclude each other") == true)
    }

    @Test func insecureWithoutPinsAlsoSkipsTheHostNameLikeCurlK() throws {
        let policy = try TrustOptions(insecure: true).policy()
        #expect(policy.allowInvalidCertificates && !policy.validatesDomainName && policy.pinningMode == .none)
        // Any certificate: a self-signed one for another name.
        #expect(policy.evaluate(chain: [try Self.der("ss-san.pem")], domain: "127.0.0.1"))
        #expect(TrustOptions(insecure: true).insecureWarning?.hasPrefix("courier: warning: --insecure: any certificate is accepted") == true)
    }

    @Test func insecureWithPinsKeepsTheHostNameCheck() throws {
        let policy = try TrustOptions(pinnedCertificateFiles: [Self.fixture("ss-san.pem")], insecure: true).policy()
        #expect(policy.allowInvalidCertificates && policy.validatesDomainName)
        #expect(policy.evaluate(chain: [try Self.der("ss-san.pem")], domain: "foobar.com"))
        #expect(!policy.evaluate(chain: [try Self.der("ss-san.pem")], domain: "127.0.0.1"))
        #expect(TrustOptions(pinnedKeys: ["x"], insecure: true).insecureWarning?.contains("only the pinned public keys") == true)
    }

    @Test func noVerifyHostTurnsOffTheNameCheck() throws {
        let options = TrustOptions(caFile: Self.fixture("root2.pem"), noVerifyHost: true)
        let policy = try options.policy()
        #expect(!policy.validatesDomainName && !policy.allowInvalidCertificates)
        let other = [try Self.der("leaf2.pem"), try Self.der("intermediate2.pem")]
        #expect(policy.evaluate(chain: other, domain: "127.0.0.1"))
        #expect(!(try TrustOptions(caFile: Self.fixture("root2.pem")).policy()).evaluate(chain: other, domain: "127.0.0.1"))
    }

    @Test func clientCertificatesAreCheckedWithTheirPassword() throws {
        let password = try String(contentsOfFile: Self.fixture("client-password.txt"), encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        var options = TrustOptions(clientCertificateFile: Self.fixture("client.pem"), clientKeyFile: Self.fixture("client-encrypted.key"),
                                   clientKeyPassword: password)
        #expect(try options.clientCertificate()?.password == password)
        options.clientKeyPassword = "wrong"
        let wrong = #expect(throws: CLIError.self) { try options.clientCertificate() }
        #expect(wrong?.message.contains("the password does not open the private key") == true)
        #expect(wrong?.hint == "give the key's password with --pass PASSWORD")
        options.clientKeyPassword = nil
        #expect((#expect(throws: CLIError.self) { try options.clientCertificate() })?.hint?.contains("--pass") == true)
        options.clientKeyFile = Self.fixture("other.key")
        #expect((#expect(throws: CLIError.self) { try options.clientCertificate() })?.message.contains("does not belong") == true)
        #expect(throws: CLIError.self) { try TrustOptions(clientKeyFile: Self.fixture("client.key")).clientCertificate() }
    }

    @Test func trustFailuresExitWith7AndListTheChainsPins() throws {
        let chain = [try Self.der("leaf.pem"), try Self.der("intermediate.pem")]
        let trust = ServerTrust(host: "127.0.0.1", certificateChain: chain)
        let policy = SecurityPolicy(pinningMode: .publicKey, pinnedPublicKeys: [try #require(PublicKeyPin("sha256/" + String(repeating: "A", count: 43) + "="))],
                                    trustAnchors: .certificates([Certificate(derBytes: try Self.der("root.pem"))]))
        let refusal = try #require(#expect(throws: TrustError.self) { try policy.evaluate(trust) })
        let error = CourierError(stage: .transport, underlyingError: refusal)
        #expect(ExitStatus.code(for: error) == 7)
        // Escaped for a terminal: the curly quotes and the names are text and stay as they are.
        let lines = ErrorReport.lines(for: error, terminal: true)
        let leafPin = try #require(Certificate(derBytes: chain[0]).publicKeyPin)
        #expect(lines.count == 2)
        #expect(lines[0].contains("pretending to be “127.0.0.1”") && lines[0].contains("\(leafPin) (/O=Courier Tests/CN=localhost)"))
        #expect(lines[1].hasPrefix("courier: hint: to trust this server, pin one of the chain's keys"))

        // An untrusted chain: the hint lists the pins.
        let untrusted = try #require(#expect(throws: TrustError.self) { try SecurityPolicy.default.evaluate(trust) })
        let hint = ErrorReport.describe(CourierError(stage: .transport, underlyingError: untrusted)).hint
        #expect(hint?.contains("\(leafPin) (/O=Courier Tests/CN=localhost)") == true)
        #expect(hint?.contains("--cacert FILE") == true)
    }

    @Test func theOptionsParseAndShowInTheCurlCommand() throws {
        let command = try RequestCommand.parse([
            "--cacert", "ca.pem", "--pin-key", "sha256/abc=", "--pin-key", "sha256/def=", "-k", "--no-verify-host",
            "--cert", "c.pem", "--key", "k.pem", "--pass", "pw", "https://h/get",
        ])
        let options = command.trustOptions
        #expect(options == TrustOptions(caFile: "ca.pem", pinnedKeys: ["sha256/abc=", "sha256/def="], insecure: true, noVerifyHost: true,
                                        clientCertificateFile: "c.pem", clientKeyFile: "k.pem", clientKeyPassword: "pw"))
        let repeated = try RequestCommand.parse(["--pin-cert", "a.pem", "--pin-cert", "b.der", "--insecure", "https://h/"])
        #expect(repeated.pinCert == ["a.pem", "b.der"] && repeated.insecure)

        var curl = CurlCommand.Options()
        curl.insecure = true
        curl.pinnedKeys = ["sha256/abc=", "file.pem", "sha256/def="]
        curl.clientCertificate = "c.pem"
        curl.clientKey = "k.pem"
        curl.clientKeyPassword = "pw"
        let plan = try RequestPlan.build(line: RequestLine.parse(["https://h/get"]), encoding: nil, authorization: nil)
        let words = CurlCommand(plan: plan, options: curl).words
        #expect(words.contains("-k"))
        #expect(words.split(separator: "--pinnedpubkey").dropFirst().first?.first == "sha256//abc=;sha256//def=")
        #expect(words.split(separator: "--cert").dropFirst().first?.first == "c.pem")
        #expect(words.split(separator: "--key").dropFirst().first?.first == "k.pem")
        #expect(words.split(separator: "--pass").dropFirst().first?.first == "pw")
    }
}
