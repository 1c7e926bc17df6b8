import CourierCore
import FoundationEssentials

/// Whether to trust a TLS server: AFNetworking's `AFSecurityPolicy`, evaluated with OpenSSL inside the
/// handshake (set it as a session's trust evaluator).
///
/// ```swift
/// let pins = try Certificate.certificates(inDirectory: "/etc/myapp/pins")
/// let policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: Set(pins))
/// let session = try Session(configuration: SessionConfiguration(baseURL: URL(string: "https://api.example.com")),
///                           transport: try CurlTransport(), securityPolicy: policy)
/// ```
/// The decision is AFNetworking's, step by step (behaviour-spec §3.10; docs/security.md explains each
/// mode, what it checks and what it does not):
/// 1. With a domain to check, ``allowInvalidCertificates`` and ``validatesDomainName`` together need
///    pinning (a mode other than `.none` and at least one pin): otherwise the server is refused.
/// 2. The chain is checked against the ``trustAnchors`` ("system trust"): path, validity dates, the
///    TLS-server purpose and, with ``validatesDomainName``, the host name.
/// 3. `.none`: that check decides, unless ``allowInvalidCertificates`` skips it.
/// 4. Pinning without ``allowInvalidCertificates`` also requires that check to pass.
/// 5. `.certificate`: the chain must also be valid with the pinned certificates as the only anchors
///    (dates and host name still checked), and contain one of them byte for byte.
/// 6. `.publicKey`: some certificate of the chain must have a pinned public key; nothing else is
///    checked when ``allowInvalidCertificates`` is on.
///
/// A policy is a value: copies are independent, equal policies decide alike (so a transport may share
/// connections between them), and it is `Codable`.
public struct SecurityPolicy: ServerTrustEvaluator, Sendable, Hashable {
    /// What is pinned (AFNetworking's `AFSSLPinningMode`).
    public enum PinningMode: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
        /// Nothing: the anchors alone decide.
        case none
        /// Public keys: of the pinned certificates, and ``SecurityPolicy/pinnedPublicKeys``.
        case publicKey
        /// Whole certificates (``SecurityPolicy/pinnedCertificates``).
        case certificate

        /// AFNetworking's constant, e.g. `AFSSLPinningModeCertificate`.
        public var afName: String {
            switch self {
            case .none: return "AFSSLPinningModeNone"
            case .publicKey: return "AFSSLPinningModePublicKey"
            case .certificate: return "AFSSLPinningModeCertificate"
            }
        }

        /// The case's name.
        public var description: String { rawValue }
    }

    /// What is pinned.
    public var pinningMode: PinningMode
    /// Accept certificates the anchors do not vouch for: expired, self-signed, of an unknown CA.
    /// Dangerous without pinning; with `.none` it accepts any server (see docs/security.md).
    public var allowInvalidCertificates: Bool
    /// Check that the leaf certificate names the host (DNS or IP subject alternative names).
    public var validatesDomainName: Bool
    /// The pinned certificates (DER). Bytes that are not a certificate match nothing.
    public var pinnedCertificates: Set<Certificate>
    /// okhttp-style `sha256/…` pins, used by `.publicKey` beside the pinned certificates' keys.
    public var pinnedPublicKeys: Set<PublicKeyPin>
    /// What "system trust" means for this policy.
    public var trustAnchors: TrustAnchors

    /// A policy; the defaults are AFNetworking's `defaultPolicy` (checklist item 70).
    public init(
        pinningMode: PinningMode = .none,
        pinnedCertificates: Set<Certificate> = [],
        pinnedPublicKeys: Set<PublicKeyPin> = [],
        allowInvalidCertificates: Bool = false,
        validatesDomainName: Bool = true,
        trustAnchors: TrustAnchors = .system
    ) {
        self.pinningMode = pinningMode
        self.pinnedCertificates = pinnedCertificates
        self.pinnedPublicKeys = pinnedPublicKeys
        self.allowInvalidCertificates = allowInvalidCertificates
        self.validatesDomainName = validatesDomainName
        self.trustAnchors = trustAnchors
    }

    /// AFNetworking's `defaultPolicy`: no pinning, valid certificates only, host names checked, the
    /// system's anchors.
    public static var `default`: SecurityPolicy { SecurityPolicy() }

    /// AFNetworking's `policyWithPinningMode:` on Linux: pins every certificate of a directory
    /// (``Certificate/certificates(inDirectory:)``) in the given mode.
    /// - Throws: ``CertificateLoadingError``.
    public static func pinning(_ mode: PinningMode, certificatesInDirectory path: String) throws(CertificateLoadingError) -> SecurityPolicy {
        SecurityPolicy(pinningMode: mode, pinnedCertificates: Set(try Certificate.certificates(inDirectory: path)))
    }

    /// The pins step 1 counts: the pinned certificates, and in `.publicKey` mode the key pins too.
    var pinCount: Int {
        pinnedCertificates.count + (pinningMode == .publicKey ? pinnedPublicKeys.count : 0)
    }
}
