import FoundationEssentials

/// An okhttp-style public-key pin: `sha256/` followed by the Base64 of the SHA-256 of a certificate's
/// SubjectPublicKeyInfo (DER), e.g. `sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=`.
///
/// Get a server's pins from a refused request's error (it lists the chain's real pins), from
/// ``Certificate/publicKeyPin``, or with
/// `openssl x509 -in cert.pem -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`.
public struct PublicKeyPin: Sendable, Hashable, Codable, CustomStringConvertible, LosslessStringConvertible {
    /// The 32 bytes of the SHA-256 digest.
    public let sha256Digest: [UInt8]

    /// The pin of a SubjectPublicKeyInfo in DER.
    public init(subjectPublicKeyInfo: [UInt8]) {
        sha256Digest = sha256(subjectPublicKeyInfo)
    }

    /// Parses `sha256/BASE64`; `nil` for anything else (another hash, bad Base64, not 32 bytes).
    public init?(_ description: String) {
        var text = Substring(description)
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        guard text.hasPrefix("sha256/"),
              let digest = Data(base64Encoded: String(text.dropFirst("sha256/".count))),
              digest.count == 32
        else { return nil }
        sha256Digest = [UInt8](digest)
    }

    /// `sha256/BASE64`.
    public var description: String { "sha256/" + Data(sha256Digest).base64EncodedString() }

    /// Decodes `sha256/BASE64` from a string.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let pin = PublicKeyPin(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a sha256/BASE64 pin: \(text)")
        }
        self = pin
    }

    /// Encodes `sha256/BASE64` as a string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
