/// The certificates a ``SecurityPolicy`` trusts as roots: AFNetworking's "system trust".
///
/// ```swift
/// let policy = SecurityPolicy(trustAnchors: try .certificates(inFile: "/etc/myapp/ca.pem"))
/// ```
public enum TrustAnchors: Sendable, Hashable {
    /// The operating system's trust store (OpenSSL's default locations, `/etc/ssl/certs` on Debian).
    case system
    /// These certificates only (a private CA, or tests' root `R`).
    case certificates([Certificate])

    /// The certificates of a PEM or DER file as the only anchors.
    /// - Throws: ``CertificateLoadingError``.
    public static func certificates(inFile path: String) throws(CertificateLoadingError) -> TrustAnchors {
        .certificates(try Certificate.certificates(contentsOfFile: path))
    }
}
