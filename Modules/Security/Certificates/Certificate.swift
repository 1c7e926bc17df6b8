import FoundationEssentials

/// A certificate as bytes of DER: what a ``SecurityPolicy`` pins and what it trusts as an anchor.
///
/// Any bytes may be held, as AFNetworking's `pinnedCertificates` may hold any `NSData`: bytes that are not
/// a certificate simply match nothing (checklist item 85). Load real ones with
/// ``certificates(fromPEMOrDER:)``, ``certificates(contentsOfFile:)`` or ``certificates(inDirectory:)``.
///
/// ```swift
/// let pins = try Certificate.certificates(contentsOfFile: "/etc/myapp/pins/api.pem")
/// print(pins.map(\.publicKeyPin))   // [sha256/…]
/// ```
public struct Certificate: Sendable, Hashable, CustomStringConvertible {
    /// The DER encoding.
    public let derBytes: [UInt8]

    /// A certificate from DER bytes; nothing is checked (see ``isParseable``).
    public init(derBytes: [UInt8]) {
        self.derBytes = derBytes
    }

    /// Whether the bytes are one X.509 certificate.
    public var isParseable: Bool { X509Object(der: derBytes) != nil }

    /// The okhttp-style pin of its public key, `sha256/` + Base64 of the SHA-256 of its
    /// SubjectPublicKeyInfo; `nil` when the bytes are not a certificate.
    public var publicKeyPin: PublicKeyPin? {
        X509Object(der: derBytes)?.subjectPublicKeyInfo.map { PublicKeyPin(subjectPublicKeyInfo: $0) }
    }

    /// The subject, e.g. `/O=Courier Tests/CN=localhost`; `nil` when the bytes are not a certificate.
    public var subject: String? { X509Object(der: derBytes)?.subject }

    /// The subject and the public key's pin, or the byte count of something that is not a certificate.
    public var description: String {
        guard let certificate = X509Object(der: derBytes), let key = certificate.subjectPublicKeyInfo else {
            return "Certificate(\(derBytes.count) bytes, not a certificate)"
        }
        return "Certificate(\(certificate.subject), \(PublicKeyPin(subjectPublicKeyInfo: key)))"
    }
}

extension Certificate: Codable {
    /// Decodes the Base64 of the DER bytes.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let bytes = Data(base64Encoded: try container.decode(String.self)) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "a certificate is Base64 of its DER bytes")
        }
        self.init(derBytes: [UInt8](bytes))
    }

    /// Encodes the Base64 of the DER bytes.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Data(derBytes).base64EncodedString())
    }
}
