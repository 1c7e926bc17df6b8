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
    ///
    /// A transport may reuse a connection it verified for later requests with an *equal* evaluator
    /// (make your evaluator `Hashable` for that); with an evaluator that is not `Hashable` it
    /// opens a connection, and runs this, for every request.
    func evaluate(_ trust: ServerTrust) throws
}
