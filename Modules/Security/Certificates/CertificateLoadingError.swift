/// Certificates could not be loaded.
public struct CertificateLoadingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        let name: String
        init(_ name: String) { self.name = name }

        /// The file or directory could not be read.
        public static let unreadable = Code("unreadable")
        /// The bytes hold no PEM `CERTIFICATE` block and are not a DER certificate.
        public static let noCertificate = Code("no certificate")

        /// The code's name.
        public var description: String { name }
    }

    /// What went wrong.
    public var code: Code
    /// The file or directory, when one was read.
    public var path: String?
    /// The system's words, when it had some.
    public var detail: String?

    /// An error.
    public init(_ code: Code, path: String?, detail: String? = nil) {
        self.code = code
        self.path = path
        self.detail = detail
    }

    /// e.g. `no certificate in /tmp/pins/a.pem (PEM or DER expected)`.
    public var description: String {
        let place = path.map { " \($0)" } ?? ""
        switch code {
        case .unreadable:
            return "cannot read\(place)" + (detail.map { ": \($0)" } ?? "")
        default:
            return "no certificate in\(place.isEmpty ? " the data" : place) (PEM or DER expected)"
        }
    }
}
