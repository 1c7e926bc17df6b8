import CourierCore
import CourierSecurity
import Foundation

/// The TLS options of a request (`--cacert`, `--pin-cert`, `--pin-key`, `--insecure`, `--no-verify-host`,
/// `--cert`/`--key`/`--pass`) and what they make: the ``CourierSecurity/SecurityPolicy`` that judges the
/// server inside the handshake, and the client certificate.
///
/// `courier` always evaluates an https server with a policy, even without options (AFNetworking's default
/// policy on the system's trust store), so every trust failure can list the server chain's pins.
struct TrustOptions: Equatable {
    var caFile: String?
    var pinnedCertificateFiles: [String] = []
    var pinnedKeys: [String] = []
    var insecure = false
    var noVerifyHost = false
    var clientCertificateFile: String?
    var clientKeyFile: String?
    var clientKeyPassword: String?

    /// Whether any pin was given.
    var pins: Bool { !pinnedCertificateFiles.isEmpty || !pinnedKeys.isEmpty }

    /// The policy the options describe.
    /// - Throws: ``CLIError`` for an unreadable file, a file without a certificate, a malformed pin, or
    ///   options that exclude each other.
    func policy() throws(CLIError) -> SecurityPolicy {
        if !pinnedCertificateFiles.isEmpty && !pinnedKeys.isEmpty {
            throw CLIError("--pin-cert and --pin-key exclude each other: pin whole certificates or public keys",
                           hint: "--pin-key also takes a certificate file, whose public key it pins")
        }
        var policy = SecurityPolicy()
        if let caFile {
            policy.trustAnchors = try Self.load(caFile, option: "--cacert") { try TrustAnchors.certificates(inFile: $0) }
        }
        if !pinnedCertificateFiles.isEmpty {
            policy.pinningMode = .certificate
            for file in pinnedCertificateFiles {
                policy.pinnedCertificates.formUnion(try Self.load(file, option: "--pin-cert") { try Certificate.certificates(contentsOfFile: $0) })
            }
        }
        if !pinnedKeys.isEmpty {
            policy.pinningMode = .publicKey
            for key in pinnedKeys {
                if key.hasPrefix("sha256/") {
                    guard let pin = PublicKeyPin(key) else {
                        throw CLIError("--pin-key \(key) is not a pin", hint: "a pin is sha256/ and the Base64 of 32 bytes, e.g. from the pins an error lists")
                    }
                    policy.pinnedPublicKeys.insert(pin)
                } else {
                    let certificates = try Self.load(key, option: "--pin-key") { try Certificate.certificates(contentsOfFile: $0) }
                    for certificate in certificates {
                        if let pin = certificate.publicKeyPin { policy.pinnedPublicKeys.insert(pin) }
                    }
                }
            }
        }
        if insecure {
            policy.allowInvalidCertificates = true
            // Without a pin AFNetworking refuses to check a name on certificates it accepts unchecked
            // (its rule R1); like `curl -k`, --insecure then checks no name either.
            if !pins { policy.validatesDomainName = false }
        }
        if noVerifyHost { policy.validatesDomainName = false }
        return policy
    }

    /// The warning `--insecure` prints on stderr; `nil` without it.
    var insecureWarning: String? {
        guard insecure else { return nil }
        if !pins {
            return "courier: warning: --insecure: any certificate is accepted and no host name is checked; the connection is encrypted, but nothing proves who the server is"
        }
        if !pinnedKeys.isEmpty {
            return "courier: warning: --insecure: certificates need not be valid (dates, CA, host name are not checked); only the pinned public keys identify the server"
        }
        return "courier: warning: --insecure: certificates need not come from a trusted CA; the pinned certificates anchor the chain (dates and host name are still checked)"
    }

    /// The client certificate for mutual TLS, checked before connecting; `nil` without `--cert`.
    /// - Throws: ``CLIError`` saying what is wrong (wrong password, a key of another certificate, …).
    func clientCertificate() throws(CLIError) -> ClientCertificate? {
        guard let certificateFile = clientCertificateFile else {
            if clientKeyFile != nil { throw CLIError("--key needs --cert FILE: the certificate the key belongs to") }
            if clientKeyPassword != nil { throw CLIError("--pass is the password of --key's private key: use it with --cert and --key") }
            return nil
        }
        do {
            return try ClientCertificate.load(certificateFile: certificateFile, keyFile: clientKeyFile ?? certificateFile,
                                              password: clientKeyPassword)
        } catch {
            var hint: String?
            switch error.code {
            case .passwordRequired, .wrongPassword: hint = "give the key's password with --pass PASSWORD"
            case .keyMismatch: hint = "--key must be the private key of the certificate in --cert"
            case .noPrivateKey where clientKeyFile == nil: hint = "give the private key's file with --key FILE"
            default: break
            }
            throw CLIError("client certificate: \(error)", hint: hint)
        }
    }

    private static func load<T>(_ path: String, option: String, _ body: (String) throws -> T) throws(CLIError) -> T {
        do {
            return try body(path)
        } catch {
            throw CLIError("\(option): \(error)")
        }
    }
}
