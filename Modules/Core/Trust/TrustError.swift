import FoundationEssentials

/// A server was not trusted (AFNetworking's `NSURLErrorServerCertificateUntrusted`, -1202).
///
/// ``message`` is AFNetworking's sentence; ``reason`` says what exactly failed, e.g. which pins the
/// server's chain really has, so a configuration can be fixed by copy and paste.
public struct TrustError: Error, Sendable, Hashable, CustomStringConvertible {
    /// AFNetworking's code for this error, `NSURLErrorServerCertificateUntrusted`.
    public static let code = -1202

    /// The host that was refused.
    public var host: String
    /// Why, e.g. which pins the chain really has.
    public var reason: String
    /// What the server presented, when it is known (AFNetworking's `PeerTrust` key).
    public var serverTrust: ServerTrust?
    /// The URL being requested, when it is known (AFNetworking's `FailingURL` key).
    public var failingURL: URL?

    /// A trust error.
    public init(host: String, reason: String, serverTrust: ServerTrust? = nil, failingURL: URL? = nil) {
        self.host = host
        self.reason = reason
        self.serverTrust = serverTrust
        self.failingURL = failingURL
    }

    /// AFNetworking's `serverTrustError(trust, url)`: the host comes from `url`, else from `trust`.
    /// Either may be `nil`; each one given is kept (checklist item 90).
    public static func serverTrustError(_ trust: ServerTrust?, url: URL?, reason: String = "the server is not trusted") -> TrustError {
        TrustError(host: url?.host ?? trust?.host ?? "", reason: reason, serverTrust: trust, failingURL: url)
    }

    /// Always ``TrustError/code`` (-1202).
    public var code: Int { Self.code }

    /// ``failingURL`` as a string (AFNetworking's `FailingURLString` key).
    public var failingURLString: String? { failingURL?.absoluteString }

    /// AFNetworking's description, word for word, with curly quotes.
    public var message: String {
        "The certificate for this server is invalid. You might be connecting to a server that is pretending to be “\(host)” which could put your confidential information at risk."
    }

    /// ``message`` followed by the reason.
    public var description: String { "\(message) (\(reason))" }
}
