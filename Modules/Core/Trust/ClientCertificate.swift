/// A client certificate and its private key for mutual TLS, both in PEM.
///
/// Build one from files with `CourierSecurity`'s `ClientCertificate.load(certificateFile:keyFile:password:)`,
/// which checks the password and that the key belongs to the certificate before any connection is made,
/// or from bytes you already hold; a transport presents it when a server asks for one.
///
/// ```swift
/// var configuration = CurlTransport.Configuration()
/// configuration.clientCertificate = try ClientCertificate.load(certificateFile: "client.pem", keyFile: "client.key")
/// ```
public struct ClientCertificate: Sendable, Hashable, CustomStringConvertible {
    /// The certificate in PEM, leaf first; intermediates may follow.
    public var certificatePEM: [UInt8]
    /// The private key in PEM, encrypted or not.
    public var privateKeyPEM: [UInt8]
    /// The key's password, when it is encrypted.
    public var password: String?

    /// A client certificate from PEM bytes; nothing is checked here.
    public init(certificatePEM: [UInt8], privateKeyPEM: [UInt8], password: String? = nil) {
        self.certificatePEM = certificatePEM
        self.privateKeyPEM = privateKeyPEM
        self.password = password
    }

    /// Says how big the parts are, never the key or the password.
    public var description: String {
        "ClientCertificate(certificate: \(certificatePEM.count) bytes of PEM, key: \(privateKeyPEM.count) bytes of PEM\(password == nil ? "" : ", password set"))"
    }
}
