internal import COpenSSL
import FoundationEssentials

/// An OpenSSL `X509` this module owns: parsed from DER, freed with the object.
final class X509Object {
    let pointer: OpaquePointer

    /// Parses one DER certificate; `nil` when the bytes are not exactly one certificate.
    init?(der: [UInt8]) {
        guard !der.isEmpty, der.count < Int(Int32.max) else { return nil }
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            guard let base = buffer.baseAddress else { return nil }
            var cursor: UnsafePointer<UInt8>? = base
            guard let certificate = d2i_X509(nil, &cursor, buffer.count) else { return nil }
            // Trailing bytes mean this was not (only) a certificate.
            if cursor != base + buffer.count {
                X509_free(certificate)
                return nil
            }
            return certificate
        }
        ERR_clear_error()
        guard let parsed else { return nil }
        pointer = parsed
    }

    /// Takes ownership of a certificate OpenSSL allocated.
    init(owning pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit { X509_free(pointer) }

    /// The certificate in DER.
    var der: [UInt8] { Self.der(of: pointer) }

    /// True when `issuer` issued this certificate: its subject is this one's issuer and its key
    /// verifies this one's signature.
    func isIssued(by issuer: X509Object) -> Bool {
        defer { ERR_clear_error() }
        guard X509_check_issued(issuer.pointer, pointer) == 0, let key = X509_get0_pubkey(issuer.pointer) else { return false }
        return X509_verify(pointer, key) == 1
    }

    /// The certificates that really chain from the first one by signature, in order: the leaf,
    /// then its issuer among the others, and so on. Certificates a server appends without their
    /// being on that chain are left out, so they cannot lend their keys to a pin check.
    static func signaturePath(_ certificates: [X509Object]) -> [X509Object] {
        guard let leaf = certificates.first else { return [] }
        var path = [leaf]
        var remaining = Array(certificates.dropFirst())
        while let current = path.last, let index = remaining.firstIndex(where: { current.isIssued(by: $0) }) {
            path.append(remaining.remove(at: index))
        }
        return path
    }

    /// A certificate OpenSSL holds, in DER.
    static func der(of certificate: OpaquePointer) -> [UInt8] {
        let length = i2d_X509(certificate, nil)
        guard length > 0 else { return [] }
        return [UInt8](unsafeUninitializedCapacity: Int(length)) { buffer, count in
            var cursor = buffer.baseAddress
            count = Int(max(0, i2d_X509(certificate, &cursor)))
        }
    }

    /// The DER of the SubjectPublicKeyInfo: what an okhttp-style pin hashes and what public-key pinning
    /// compares.
    var subjectPublicKeyInfo: [UInt8]? {
        guard let key = X509_get_X509_PUBKEY(pointer) else { return nil }
        let length = i2d_X509_PUBKEY(key, nil)
        guard length > 0 else { return nil }
        return [UInt8](unsafeUninitializedCapacity: Int(length)) { buffer, count in
            var cursor = buffer.baseAddress
            count = Int(max(0, i2d_X509_PUBKEY(key, &cursor)))
        }
    }

    /// The subject in OpenSSL's one-line form, e.g. `/O=Courier Tests/CN=localhost`.
    var subject: String {
        guard let name = X509_get_subject_name(pointer), let line = X509_NAME_oneline(name, nil, 0) else { return "" }
        defer { copenssl_free(line) }
        return String(cString: line)
    }

    /// Every certificate in PEM text (`-----BEGIN CERTIFICATE-----` blocks), in order; other blocks and
    /// text between them are skipped.
    static func certificates(inPEM bytes: [UInt8]) -> [X509Object] {
        guard !bytes.isEmpty, bytes.count < Int(Int32.max) else { return [] }
        return bytes.withUnsafeBytes { buffer -> [X509Object] in
            guard let bio = copenssl_bio_from_bytes(buffer.baseAddress, Int32(buffer.count)) else { return [] }
            defer { BIO_free(bio) }
            var found: [X509Object] = []
            while let certificate = PEM_read_bio_X509(bio, nil, nil, nil) {
                found.append(X509Object(owning: certificate))
            }
            ERR_clear_error()   // the end of the input is reported as an error
            return found
        }
    }
}

/// SHA-256 of `bytes`.
func sha256(_ bytes: [UInt8]) -> [UInt8] {
    var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
    var length: UInt32 = 0
    let ok = bytes.withUnsafeBytes { input in
        EVP_Digest(input.baseAddress, input.count, &digest, &length, EVP_sha256(), nil)
    }
    return ok == 1 ? Array(digest.prefix(Int(length))) : []
}
