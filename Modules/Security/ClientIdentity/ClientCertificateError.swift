/// A client certificate and key could not be used, found before any connection is made.
public struct ClientCertificateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        let name: String
        init(_ name: String) { self.name = name }

        /// A file could not be read.
        public static let unreadableFile = Code("unreadable file")
        /// The certificate file holds no PEM certificate.
        public static let noCertificate = Code("no certificate")
        /// The key file holds no PEM private key.
        public static let noPrivateKey = Code("no private key")
        /// The key is encrypted and no password was given.
        public static let passwordRequired = Code("password required")
        /// The key is encrypted and the password does not open it.
        public static let wrongPassword = Code("wrong password")
        /// The key does not belong to the certificate.
        public static let keyMismatch = Code("key does not match the certificate")

        /// The code's name.
        public var description: String { name }
    }

    /// What went wrong.
    public var code: Code
    /// The file concerned, when files were read.
    public var path: String?
    /// The system's reason, for ``Code/unreadableFile`` (e.g. `Is a directory`).
    public var reason: String?

    /// An error.
    public init(_ code: Code, path: String? = nil, reason: String? = nil) {
        self.code = code
        self.path = path
        self.reason = reason
    }

    /// e.g. `the password does not open the private key in client.key`.
    public var description: String {
        let place = path.map { " \($0)" } ?? ""
        switch code {
        case .unreadableFile: return "cannot read\(place)" + (reason.map { ": \($0)" } ?? "")
        case .noCertificate: return "no PEM certificate in\(place.isEmpty ? " the certificate" : place)"
        case .noPrivateKey: return "no PEM private key in\(place.isEmpty ? " the key" : place)"
        case .passwordRequired: return "the private key\(place.isEmpty ? "" : " in" + place) is encrypted: a password is needed"
        case .wrongPassword: return "the password does not open the private key\(place.isEmpty ? "" : " in" + place)"
        case .keyMismatch: return "the private key\(place.isEmpty ? "" : " in" + place) does not belong to the client certificate"
        default: return "\(code)\(place)"
        }
    }
}
