/// What a TLS server presented: the host asked for and its certificate chain.
public struct ServerTrust: Sendable, Hashable {
    /// The host name or IP address the client connected to.
    public var host: String
    /// The peer's certificates in DER form, leaf first.
    public var certificateChain: [[UInt8]]

    /// A server trust.
    public init(host: String, certificateChain: [[UInt8]]) {
        self.host = host
        self.certificateChain = certificateChain
    }
}

/// Decides whether to trust a TLS server, during the handshake, before a byte of the request is
/// sent (AFNetworking's `AFSecurityPolicy`).
///
/// Implement this to replace the transport's own verification; `CourierSecurity.SecurityPolicy`
/// is the ready-made one. A transport that cannot run the evaluator must refuse the connection,
/// never skip it.
///
/// ```swift
/// struct PinLeaf: ServerTrustEvaluator {
///     let leaf: [UInt8]
///     func evaluate(_ trust: ServerTrust) throws {
///         guard trust.certificateChain.first == leaf else {
///             throw TrustError(host: trust.host, reason: "leaf certificate is not the pinned one")
///         }
///     }
/// }
/// ```
public protocol ServerTrustEvaluator: Sendable {
    /// Returns to trust the server, throws (a ``TrustError`` or your own) to refuse it.
    /// Called on the transport's I/O thread: keep it fast, never block on the network.
    func evaluate(_ trust: ServerTrust) throws
}

/// A server was not trusted.
public struct TrustError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The host that was refused.
    public var host: String
    /// Why, e.g. which pins the chain really has.
    public var reason: String

    /// A trust error.
    public init(host: String, reason: String) {
        self.host = host
        self.reason = reason
    }

    /// AFNetworking's wording, followed by the reason.
    public var description: String {
        "The certificate for this server is invalid. You might be connecting to a server that is pretending to be “\(host)” which could put your confidential information at risk. (\(reason))"
    }
}
