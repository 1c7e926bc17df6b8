import CourierCore
import CourierCurl
import CourierSecurity
import Foundation
import Testing

/// The Swift examples of docs/security.md, verbatim (Scripts/lib/check-doc-examples.py checks that they
/// stay so), run against the committed fixtures.
@Suite("docs/security.md examples")
struct SecurityDocExamplesTests {
    let pinsDirectory = Fixture.path("pins")
    let leafFile = Fixture.path("leaf.pem")
    let caFile = Fixture.path("root.pem")
    let clientCertificateFile = Fixture.path("client.pem")
    let clientKeyFile = Fixture.path("client-encrypted.key")
    var keyPassword: String {
        (try? String(contentsOfFile: Fixture.path("client-password.txt"), encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
    }

    @Test func firstLines() throws {
        let pins = try Certificate.certificates(inDirectory: pinsDirectory)
        let policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: Set(pins))
        let session = try Session(
            configuration: SessionConfiguration(baseURL: URL(string: "https://api.example.com/v1")),
            transport: try CurlTransport(),
            securityPolicy: policy
        )
        #expect(session.configuration.trustEvaluator as? SecurityPolicy == policy)
    }

    @Test func certificatesAndPins() throws {
        let fromFile = try Certificate.certificates(contentsOfFile: leafFile)        // PEM (all blocks) or DER
        let fromDirectory = try Certificate.certificates(inDirectory: pinsDirectory) // .cer .crt .der .pem
        let pin = fromFile[0].publicKeyPin                                            // sha256/…
        let parsed = PublicKeyPin("sha256/WbMQg1W6nG2n328yqr7SKstSm6ckSPPBPVFkLGGVsw0=")
        #expect(fromDirectory.contains(fromFile[0]) && pin != nil && parsed != nil)
    }

    @Test func recipes() throws {
        let intermediatePin = try #require(Fixture.certificate("intermediate").publicKeyPin)
        let currentPin = intermediatePin
        let nextPin = try #require(Fixture.certificate("root2").publicKeyPin)
        let chain = [Fixture.L, Fixture.I]

        let leaf = try Certificate.certificates(contentsOfFile: leafFile)
        let pinLeaf = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: Set(leaf))
        #expect(!pinLeaf.evaluate(chain: chain, domain: "localhost"))   // the system store lacks the test CA
        #expect(SecurityPolicy(pinningMode: .certificate, pinnedCertificates: Set(leaf), trustAnchors: Fixture.anchorsR)
            .evaluate(chain: chain, domain: "localhost"))

        var pinIssuer = SecurityPolicy(pinningMode: .publicKey)
        pinIssuer.pinnedPublicKeys = [intermediatePin]
        pinIssuer.trustAnchors = Fixture.anchorsR
        #expect(pinIssuer.evaluate(chain: chain, domain: "localhost"))

        var rotating = SecurityPolicy(pinningMode: .publicKey)
        rotating.pinnedPublicKeys = [currentPin, nextPin]
        rotating.trustAnchors = Fixture.anchorsR
        #expect(rotating.evaluate(chain: chain, domain: "localhost"))

        let privateCA = SecurityPolicy(trustAnchors: try .certificates(inFile: caFile))
        #expect(privateCA.evaluate(chain: chain, domain: "127.0.0.1"))

        let selfSigned = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: Set(leaf),
                                        allowInvalidCertificates: true)
        #expect(selfSigned.evaluate(chain: chain, domain: "localhost"))
        #expect(!selfSigned.evaluate(chain: chain, domain: "example.com"))
    }

    @Test func mutualTLS() throws {
        var configuration = CurlTransport.Configuration()
        configuration.clientCertificate = try ClientCertificate.load(
            certificateFile: clientCertificateFile, keyFile: clientKeyFile, password: keyPassword
        )
        let mutualTransport = try CurlTransport(configuration: configuration)
        #expect(mutualTransport.configuration.clientCertificate != nil)
    }
}
