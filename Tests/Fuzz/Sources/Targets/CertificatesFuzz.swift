@testable import CourierSecurity
import FoundationEssentials

/// Certificate loading (`Certificate.certificates(fromPEMOrDER:)`, what pins and trust anchors are read with):
/// any bytes give certificates or a `CertificateLoadingError` (`.noCertificate`, no path), never a trap, and
/// every OpenSSL object is freed (LeakSanitizer checks at exit). Each certificate returned is non-empty DER
/// that parses again (`isParseable`, a subject, a public-key pin: a pin loaded from a file must be one
/// OpenSSL can compare), loading its DER gives exactly that certificate back, and so does loading it as a
/// PEM block, so PEM and DER of the same certificate pin the same thing. Bytes not holding a PEM block are
/// loaded as one DER certificate or refused. The chain walk over the loaded certificates
/// (`X509Object.signaturePath`) is run too, for its signature checks on hostile keys.
///
/// Input that starts like PEM (`-`) or DER (`0x30`, a SEQUENCE) is loaded as it is, so real files are seeds;
/// otherwise the first byte chooses how the rest is presented: as it is, wrapped in one PEM `CERTIFICATE`
/// block (so mutated DER reaches the PEM path), or split in two blocks with other text around them.
enum CertificatesFuzz: FuzzTarget {
    static let name = "certificates"

    static func run(_ input: FuzzInput) {
        let asItIs = input.bytes.first == UInt8(ascii: "-") || input.bytes.first == 0x30
        let mode = asItIs ? 0 : input.byte() % 3
        let payload = input.rest()
        let bytes: [UInt8]
        switch mode {
        case 0:
            bytes = payload
        case 1:
            bytes = pem(payload)
        default:
            let cut = payload.isEmpty ? 0 : Int(payload[0]) % (payload.count + 1)
            bytes = Array("junk before\n".utf8) + pem(Array(payload[..<cut])) + Array("between\r\n".utf8)
                + pem(Array(payload[cut...]), label: "CERTIFICATE") + Array("-----BEGIN X509 CRL-----\n".utf8)
        }

        let certificates: [Certificate]
        do {
            certificates = try Certificate.certificates(fromPEMOrDER: bytes)
        } catch {
            precondition(error.code == .noCertificate && error.path == nil, "unexpected error \(error)")
            return
        }
        precondition(!certificates.isEmpty, "no certificate and no error")
        let looksLikePEM = bytes.starts(with: Array("-----BEGIN".utf8)) || mode != 0 || containsPEMBegin(bytes)
        if !looksLikePEM {
            // DER loads as OpenSSL's encoding of what it read, as PEM does (a non-canonical input re-encodes).
            precondition(certificates.map(\.derBytes) == [X509Object(der: bytes)?.der ?? []], "bytes without PEM loaded as something else than their DER")
        }
        for certificate in certificates {
            let der = certificate.derBytes
            precondition(!der.isEmpty, "an empty certificate")
            precondition(certificate.isParseable, "a loaded certificate does not parse again (\(der.count) bytes)")
            precondition(certificate.subject != nil, "a loaded certificate without a subject")
            _ = certificate.publicKeyPin
            _ = certificate.description
            let again = try? Certificate.certificates(fromPEMOrDER: der)
            precondition(again == [certificate], "its DER loads as \(String(describing: again?.map(\.derBytes.count)))")
            let wrapped = try? Certificate.certificates(fromPEMOrDER: pem(der))
            precondition(wrapped == [certificate], "its PEM loads as \(String(describing: wrapped?.map(\.derBytes.count)))")
        }
        let objects = certificates.compactMap { X509Object(der: $0.derBytes) }
        precondition(objects.count == certificates.count, "a loaded certificate has no X509 object")
        let path = X509Object.signaturePath(objects)
        precondition(path.count >= 1 && path.count <= objects.count && path[0] === objects[0], "a signature path of \(path.count) from \(objects.count)")
    }

    /// Whether the PEM reader could find a block: OpenSSL's reader looks for this line anywhere.
    static func containsPEMBegin(_ bytes: [UInt8]) -> Bool {
        let marker = Array("-----BEGIN ".utf8)
        guard bytes.count >= marker.count else { return false }
        return (0...(bytes.count - marker.count)).contains { bytes[$0..<($0 + marker.count)].elementsEqual(marker) }
    }

    /// `der` as a PEM block: Base64 in lines of 64 characters between the BEGIN and END lines.
    static func pem(_ der: [UInt8], label: String = "CERTIFICATE") -> [UInt8] {
        let base64 = Data(der).base64EncodedString()
        var text = "-----BEGIN \(label)-----\n"
        var index = base64.startIndex
        while index < base64.endIndex {
            let end = base64.index(index, offsetBy: 64, limitedBy: base64.endIndex) ?? base64.endIndex
            text += base64[index..<end] + "\n"
            index = end
        }
        return Array((text + "-----END \(label)-----\n").utf8)
    }
}
