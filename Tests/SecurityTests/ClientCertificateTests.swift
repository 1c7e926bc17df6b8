import CourierCore
@testable import CourierSecurity
import Foundation
import Testing

/// Mutual TLS's client certificate, checked before connecting.
@Suite("Client certificates")
struct ClientCertificateTests {
    var password: String {
        (try? String(contentsOfFile: Fixture.path("client-password.txt"), encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
    }

    @Test("A certificate with its key, plain or encrypted with the right password, loads")
    func loads() throws {
        let plain = try ClientCertificate.load(certificateFile: Fixture.path("client.pem"), keyFile: Fixture.path("client.key"))
        #expect(plain.password == nil && !plain.certificatePEM.isEmpty && !plain.privateKeyPEM.isEmpty)
        let encrypted = try ClientCertificate.load(certificateFile: Fixture.path("client.pem"),
                                                   keyFile: Fixture.path("client-encrypted.key"), password: password)
        #expect(encrypted.password == password)
        #expect(!"\(encrypted)".contains(password))
    }

    @Test("A certificate and key from pipes load (`--key <(vault read …)`: a key that never touches the disk)")
    func loadsFromPipes() throws {
        let piped = try Fixture.withPipe(of: "client.pem") { certificate in
            try Fixture.withPipe(of: "client.key") { key in try ClientCertificate.load(certificateFile: certificate, keyFile: key) }
        }
        let plain = try ClientCertificate.load(certificateFile: Fixture.path("client.pem"), keyFile: Fixture.path("client.key"))
        #expect(piped.certificatePEM == plain.certificatePEM && piped.privateKeyPEM == plain.privateKeyPEM)
        // One file with both, given as both (`--cert <(…)` without `--key`), is read once: a pipe has no second read.
        let both = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixture.path("client.pem"))))
            + [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixture.path("client.key"))))
        let combined = try Fixture.withPipe(bytes: both) { try ClientCertificate.load(certificateFile: $0, keyFile: $0) }
        #expect(combined.privateKeyPEM == both)   // the key is found in the whole file, as from a regular one
        // An unreadable file says why.
        let directory = #expect(throws: ClientCertificateError.self) {
            try ClientCertificate.load(certificateFile: Fixture.path("."), keyFile: Fixture.path("client.key"))
        }
        #expect(directory?.reason == "Is a directory")
    }

    @Test("A wrong password, a missing one, a mismatched key and unreadable files each have their own error")
    func errors() {
        func code(_ certificate: String, _ key: String, _ password: String? = nil) -> ClientCertificateError.Code? {
            do {
                _ = try ClientCertificate.load(certificateFile: Fixture.path(certificate), keyFile: Fixture.path(key), password: password)
                return nil
            } catch {
                return error.code
            }
        }
        #expect(code("client.pem", "client-encrypted.key", "wrong") == .wrongPassword)
        #expect(code("client.pem", "client-encrypted.key") == .passwordRequired)
        #expect(code("client.pem", "other.key") == .keyMismatch)
        #expect(code("client.pem", "missing.key") == .unreadableFile)
        #expect(code("client.pem", "client.pem") == .noPrivateKey)
        #expect(code("client.key", "client.key") == .noCertificate)
        let error = ClientCertificateError(.wrongPassword, path: "client.key")
        #expect("\(error)" == "the password does not open the private key in client.key")
    }
}
