import CourierCore
@testable import CourierSecurity
import Foundation
import Testing

@Suite("Certificates and pins")
struct CertificateTests {
    @Test("PEM and DER files load to the same certificate; a bundle of PEM blocks loads in order")
    func loading() throws {
        let pem = try Certificate.certificates(contentsOfFile: Fixture.path("leaf.pem"))
        let der = try Certificate.certificates(contentsOfFile: Fixture.path("pins/leaf.cer"))
        #expect(pem.count == 1 && pem == der)
        // A DER file loads as the certificate's own encoding, as a PEM block does (found by the certificates fuzz
        // target: a certificate OpenSSL reads from a non-canonical encoding differed by how it was loaded).
        let derFile = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixture.path("pins/leaf.cer"))))
        #expect(try Certificate.certificates(fromPEMOrDER: derFile).map(\.derBytes) == [X509Object(der: derFile)!.der])
        let bundle = try String(contentsOfFile: Fixture.path("leaf.pem"), encoding: .utf8)
            + "text between blocks is ignored\n" + String(contentsOfFile: Fixture.path("intermediate.pem"), encoding: .utf8)
        let both = try Certificate.certificates(fromPEMOrDER: Array(bundle.utf8))
        #expect(both == [Fixture.certificate("leaf"), Fixture.certificate("intermediate")])
        #expect(pem[0].subject == "/O=Courier Tests/CN=localhost")
        #expect(pem[0].isParseable)
    }

    @Test("A directory's .cer/.crt/.der/.pem files are its pins (AFNetworking's certificatesInBundle); other files are skipped")
    func directory() throws {
        let pins = try Certificate.certificates(inDirectory: Fixture.path("pins"))
        #expect(Set(pins) == [Fixture.certificate("leaf"), Fixture.certificate("intermediate")])
        let policy = try SecurityPolicy.pinning(.certificate, certificatesInDirectory: Fixture.path("pins"))
        #expect(policy.pinningMode == .certificate && policy.pinnedCertificates.count == 2)
    }

    @Test("Loading errors say which file and what")
    func loadingErrors() throws {
        let missing = #expect(throws: CertificateLoadingError.self) {
            try Certificate.certificates(contentsOfFile: Fixture.path("missing.pem"))
        }
        #expect(missing?.code == .unreadable)
        let notCertificate = #expect(throws: CertificateLoadingError.self) {
            try Certificate.certificates(contentsOfFile: Fixture.path("pins/README.txt"))
        }
        #expect(notCertificate?.code == .noCertificate)
        #expect(notCertificate.map { "\($0)" }?.contains("README.txt") == true)
        #expect(throws: CertificateLoadingError.self) { try Certificate.certificates(fromPEMOrDER: [0x30, 0x03, 0x02, 0x01, 0x01]) }
        let bytes = Certificate(derBytes: Array("junk".utf8))
        #expect(!bytes.isParseable && bytes.publicKeyPin == nil && bytes.subject == nil)
        #expect("\(bytes)" == "Certificate(4 bytes, not a certificate)")
    }

    @Test("A pipe is read like a file (`--cacert <(…)`); a directory is refused with the system's reason")
    func pipesAndDirectories() throws {
        let fromPipe = try Fixture.withPipe(of: "leaf.pem") { try Certificate.certificates(contentsOfFile: $0) }
        #expect(fromPipe == [Fixture.certificate("leaf")])
        let directory = #expect(throws: CertificateLoadingError.self) {
            try Certificate.certificates(contentsOfFile: Fixture.path("pins"))
        }
        #expect(directory?.code == .unreadable)
        // Foundation's reading said `Error Domain=NSCocoaErrorDomain Code=256 "(null)"UserInfo={…}` here, and
        // "You don't have permission" for a pipe.
        #expect(directory.map { "\($0)" } == "cannot read \(Fixture.path("pins")): Is a directory")
    }

    @Test("A pin is sha256/ and the Base64 of the SPKI's SHA-256, the same as openssl computes")
    func pinsMatchOpenSSL() throws {
        for name in ["leaf", "intermediate", "root", "ss-cn"] {
            let publicKey = try openssl(["x509", "-in", Fixture.path("\(name).pem"), "-pubkey", "-noout"])
            let spki = try openssl(["pkey", "-pubin", "-outform", "der"], input: publicKey)
            let digest = try openssl(["dgst", "-sha256", "-binary"], input: spki)
            let expected = "sha256/" + digest.base64EncodedString()
            #expect(Fixture.certificate(name).publicKeyPin?.description == expected)
        }
    }

    @Test("Pins parse and print; anything but sha256 with 32 bytes of Base64 is refused")
    func pinParsing() throws {
        let pin = try #require(Fixture.certificate("leaf").publicKeyPin)
        #expect(PublicKeyPin(pin.description) == pin)
        #expect(PublicKeyPin("  \(pin.description) ") == pin)
        #expect(PublicKeyPin("sha1/AAAAAAAAAAAAAAAAAAAAAAAAAAA=") == nil)
        #expect(PublicKeyPin("sha256/not base64!") == nil)
        #expect(PublicKeyPin("sha256/AAAA") == nil)
        let data = try JSONEncoder().encode([pin])
        #expect(try JSONDecoder().decode([PublicKeyPin].self, from: data) == [pin])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([PublicKeyPin].self, from: Data(#"["md5/x"]"#.utf8)) }
    }

    @Test("sha256/ pins alone pin in public-key mode, and not in certificate mode")
    func keyPinsOnly() throws {
        let pin = try #require(Fixture.certificate("intermediate").publicKeyPin)
        var policy = SecurityPolicy.testing(.publicKey)
        policy.pinnedPublicKeys = [pin]
        #expect(policy.evaluate(chain: Fixture.chainLIR, domain: "localhost"))
        #expect(!policy.evaluate(chain: Fixture.chainL2I2R2, domain: nil))
        policy.pinningMode = .certificate
        #expect(!policy.evaluate(chain: Fixture.chainLIR, domain: "localhost"))
    }

    @Test("Trust anchors from a file; the system store does not know the test root")
    func anchors() throws {
        let anchors = try TrustAnchors.certificates(inFile: Fixture.path("root.pem"))
        #expect(SecurityPolicy(trustAnchors: anchors).evaluate(chain: Fixture.chainLIR, domain: "localhost"))
        #expect(!SecurityPolicy.default.evaluate(chain: Fixture.chainLIR, domain: "localhost"))
    }

    @Test("Host names: IP SANs for addresses, DNS SANs for names, never the CN, wildcards as whole labels")
    func hostNames() {
        let policy = SecurityPolicy.testing()
        #expect(policy.evaluate(chain: Fixture.chainLIR, domain: "LOCALHOST"))
        #expect(policy.evaluate(chain: Fixture.chainLIR, domain: "localhost."))
        #expect(!policy.evaluate(chain: Fixture.chainLIR, domain: "127.0.0.2"))
        #expect(!policy.evaluate(chain: Fixture.chainLIR, domain: "::1"))
        // SS-CN's only name is its CN: not a match (certificate pinning checks the name).
        #expect(!SecurityPolicy.testing(.certificate, pins: [Fixture.ssCN], allowInvalid: true).evaluate(chain: [Fixture.ssCN], domain: "foobar.com"))
        // A wrong-host leaf under I is refused for localhost.
        #expect(!policy.evaluate(chain: [Fixture.der("wrong-host"), Fixture.I, Fixture.R], domain: "localhost"))
        #expect(policy.evaluate(chain: [Fixture.der("wrong-host"), Fixture.I, Fixture.R], domain: "wrong.example"))
    }
}
