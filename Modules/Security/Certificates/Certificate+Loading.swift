import FoundationEssentials
import CourierCore

extension Certificate {
    /// The certificates in `bytes`: every `CERTIFICATE` block of PEM text, or one DER certificate.
    /// - Throws: ``CertificateLoadingError`` when there is none.
    public static func certificates(fromPEMOrDER bytes: [UInt8]) throws(CertificateLoadingError) -> [Certificate] {
        let pem = X509Object.certificates(inPEM: bytes)
        if !pem.isEmpty { return pem.map { Certificate(derBytes: $0.der) } }
        // The certificate's own encoding, as for PEM: OpenSSL reads one DER object and ignores what follows it,
        // so keeping the input would make the same certificate differ by trailing bytes depending on how it
        // was loaded (found by the certificates fuzz target).
        if let object = X509Object(der: bytes) { return [Certificate(derBytes: object.der)] }
        throw CertificateLoadingError(.noCertificate, path: nil)
    }

    /// The certificates in a PEM or DER file.
    /// - Throws: ``CertificateLoadingError`` when the file cannot be read or holds no certificate.
    public static func certificates(contentsOfFile path: String) throws(CertificateLoadingError) -> [Certificate] {
        let bytes: [UInt8]
        do throws(FileError) {
            bytes = try FileDescriptor.contents(of: path)
        } catch {
            // The system's reason ("Is a directory"), not Foundation's dump of its error.
            throw CertificateLoadingError(.unreadable, path: path, detail: error.why)
        }
        do {
            return try certificates(fromPEMOrDER: bytes)
        } catch {
            throw CertificateLoadingError(.noCertificate, path: path)
        }
    }

    /// The file name extensions ``certificates(inDirectory:)`` reads.
    public static let fileExtensions: Set<String> = ["cer", "crt", "der", "pem"]

    /// Every certificate in the `.cer`, `.crt`, `.der` and `.pem` files of a directory (not its
    /// subdirectories), in file-name order: AFNetworking's `certificatesInBundle:` on Linux, where a
    /// directory plays the bundle. Files with another extension are skipped; a file with one of these
    /// extensions that holds no certificate is an error, so a broken pin never goes unnoticed.
    /// - Throws: ``CertificateLoadingError``.
    public static func certificates(inDirectory path: String) throws(CertificateLoadingError) -> [Certificate] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw CertificateLoadingError(.unreadable, path: path, detail: "\(error)")
        }
        var found: [Certificate] = []
        for name in names.sorted() {
            guard let dot = name.lastIndex(of: "."),
                  fileExtensions.contains(name[name.index(after: dot)...].lowercased()) else { continue }
            let file = path.hasSuffix("/") ? path + name : path + "/" + name
            found += try certificates(contentsOfFile: file)
        }
        return found
    }
}
