internal import COpenSSL
import CourierCore
import FoundationEssentials

extension ClientCertificate {
    /// A client certificate from PEM files, checked with OpenSSL before any connection: the certificate
    /// parses, the key opens with `password` (or needs none), and the key belongs to the certificate.
    ///
    /// ```swift
    /// var configuration = CurlTransport.Configuration()
    /// configuration.clientCertificate = try ClientCertificate.load(certificateFile: "client.pem",
    ///                                                              keyFile: "client.key", password: "secret")
    /// ```
    /// - Throws: ``ClientCertificateError`` saying which of these failed.
    public static func load(certificateFile: String, keyFile: String, password: String? = nil) throws(ClientCertificateError) -> ClientCertificate {
        let certificate = try read(certificateFile)
        // One file holding both is read once: a pipe (`--cert <(…)`) has nothing left for a second read.
        let key = keyFile == certificateFile ? certificate : try read(keyFile)
        return try validated(certificatePEM: certificate, privateKeyPEM: key, password: password,
                             certificatePath: certificateFile, keyPath: keyFile)
    }

    /// A client certificate from PEM bytes, checked as ``load(certificateFile:keyFile:password:)`` checks files.
    /// - Throws: ``ClientCertificateError``.
    public static func validated(certificatePEM: [UInt8], privateKeyPEM: [UInt8], password: String? = nil) throws(ClientCertificateError) -> ClientCertificate {
        try validated(certificatePEM: certificatePEM, privateKeyPEM: privateKeyPEM, password: password,
                      certificatePath: nil, keyPath: nil)
    }

    /// A pipe too (`--key <(vault read …)`, a key that never touches the disk), which Foundation refuses.
    private static func read(_ path: String) throws(ClientCertificateError) -> [UInt8] {
        do throws(FileError) {
            return try FileDescriptor.contents(of: path)
        } catch {
            throw ClientCertificateError(.unreadableFile, path: path, reason: error.why)
        }
    }

    private static func validated(
        certificatePEM: [UInt8], privateKeyPEM: [UInt8], password: String?,
        certificatePath: String?, keyPath: String?
    ) throws(ClientCertificateError) -> ClientCertificate {
        guard let certificate = X509Object.certificates(inPEM: certificatePEM).first else {
            throw ClientCertificateError(.noCertificate, path: certificatePath)
        }
        let key = try PrivateKey.read(pem: privateKeyPEM, password: password, path: keyPath)
        let matches = X509_check_private_key(certificate.pointer, key.pointer) == 1
        ERR_clear_error()
        guard matches else { throw ClientCertificateError(.keyMismatch, path: keyPath) }
        return ClientCertificate(certificatePEM: certificatePEM, privateKeyPEM: privateKeyPEM, password: password)
    }
}

/// An OpenSSL `EVP_PKEY` read from PEM, freed with the object.
private final class PrivateKey {
    let pointer: OpaquePointer

    private init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { EVP_PKEY_free(pointer) }

    static func read(pem: [UInt8], password: String?, path: String?) throws(ClientCertificateError) -> PrivateKey {
        let text = String(decoding: pem, as: UTF8.self)
        guard text.contains("PRIVATE KEY-----") else { throw ClientCertificateError(.noPrivateKey, path: path) }
        let encrypted = text.contains("BEGIN ENCRYPTED PRIVATE KEY") || text.contains("Proc-Type: 4,ENCRYPTED")
        if encrypted, password == nil { throw ClientCertificateError(.passwordRequired, path: path) }
        guard pem.count < Int(Int32.max) else { throw ClientCertificateError(.noPrivateKey, path: path) }

        let key: OpaquePointer? = pem.withUnsafeBytes { buffer in
            guard let bio = copenssl_bio_from_bytes(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return (password ?? "").withCString { secret in
                // Our own callback: OpenSSL's default one would prompt on the terminal without a password.
                PEM_read_bio_PrivateKey(bio, nil, { buffer, size, _, secret in
                    guard let buffer, let secret, size > 0 else { return 0 }
                    let length = min(Int(size), strlen(secret.assumingMemoryBound(to: CChar.self)))
                    memcpy(buffer, secret, length)
                    return Int32(length)
                }, UnsafeMutableRawPointer(mutating: secret))
            }
        }
        ERR_clear_error()
        guard let key else {
            throw ClientCertificateError(encrypted ? .wrongPassword : .noPrivateKey, path: path)
        }
        return PrivateKey(key)
    }
}
