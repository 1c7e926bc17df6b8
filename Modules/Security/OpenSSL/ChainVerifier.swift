internal import COpenSSL
import FoundationEssentials

/// One X.509 path validation with OpenSSL: a store of anchors, the server's chain as untrusted
/// intermediates, validity dates, optionally the TLS-server purpose and the host name.
///
/// This is AFNetworking's `AFServerTrustIsValid` (`SecTrustEvaluate` with an SSL or basic X.509 policy)
/// on Linux. "Valid" means OpenSSL built a path from the leaf to one of the anchors and every check
/// passed.
struct ChainVerifier {
    /// Where paths may end.
    enum Anchors {
        /// OpenSSL's default locations (on Debian the system store, `/etc/ssl/certs`).
        case system
        /// Only these certificates.
        case only([X509Object])
    }

    var anchors: Anchors
    /// Accept a path that ends at any anchor, even one that is not self-signed: a pinned leaf or
    /// intermediate (`X509_V_FLAG_PARTIAL_CHAIN`).
    var partialChain = false
    /// Check the TLS-server purpose (extended key usage) as Apple's SSL policy does.
    var serverPurpose = true
    /// The host name or IP address the leaf must name; `nil` checks no name.
    var host: String?

    /// What a validation found.
    enum Outcome {
        /// Valid; the path OpenSSL built, leaf to anchor, in DER (it includes an anchor the server did
        /// not send, as Apple's evaluated trust does).
        case valid(path: [[UInt8]])
        /// Not valid, and why (OpenSSL's words).
        case invalid(String)
    }

    /// `nil` when the chain is valid, else why not.
    func failure(of chain: [X509Object]) -> String? {
        if case .invalid(let reason) = verify(chain) { return reason }
        return nil
    }

    /// Validates `chain` (leaf first; the rest are untrusted intermediates).
    func verify(_ chain: [X509Object]) -> Outcome {
        guard let leaf = chain.first else { return .invalid("the server presented no certificate") }
        guard let store = X509_STORE_new() else { return .invalid("out of memory") }
        defer { X509_STORE_free(store) }
        switch anchors {
        case .system:
            if X509_STORE_set_default_paths(store) != 1 {
                ERR_clear_error()
                return .invalid("the system's trust store could not be loaded")
            }
        case .only(let certificates):
            for certificate in certificates {
                // A duplicate anchor is reported as an error and is harmless.
                _ = X509_STORE_add_cert(store, certificate.pointer)
            }
            ERR_clear_error()
        }
        if partialChain { X509_STORE_set_flags(store, copenssl_flag_partial_chain) }

        guard let untrusted = copenssl_sk_X509_new_null() else { return .invalid("out of memory") }
        defer { copenssl_sk_X509_free(untrusted) }
        for certificate in chain.dropFirst() { _ = copenssl_sk_X509_push(untrusted, certificate.pointer) }

        guard let context = X509_STORE_CTX_new() else { return .invalid("out of memory") }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_CTX_init(context, store, leaf.pointer, untrusted) == 1 else {
            ERR_clear_error()
            return .invalid("the verification could not start")
        }
        if serverPurpose { _ = X509_STORE_CTX_set_default(context, "ssl_server") }
        let verified = X509_verify_cert(context) == 1
        let code = X509_STORE_CTX_get_error(context)
        ERR_clear_error()
        guard verified else {
            return .invalid(Self.pathFailurePrefix + String(cString: X509_verify_cert_error_string(Int(code))))
        }
        if let host, !Self.names(leaf, host) {
            return .invalid("the certificate does not name \(host)")
        }
        var path: [[UInt8]] = []
        if let built = X509_STORE_CTX_get1_chain(context) {
            defer { copenssl_sk_X509_pop_free(built) }
            for index in 0..<copenssl_sk_X509_num(built) {
                if let certificate = copenssl_sk_X509_value(built, index) {
                    path.append(X509Object.der(of: certificate))
                }
            }
        }
        return .valid(path: path)
    }

    /// How a failure to build or check the path begins (OpenSSL's own wording follows).
    static let pathFailurePrefix = "certificate verify failed: "

    /// Whether `certificate` names `host`: an IP address against its IP SANs, a name against its DNS SANs
    /// (RFC 6125: wildcards only as a whole left-most label; the subject's CN is never used, as browsers
    /// and Apple's TLS policy require SANs).
    static func names(_ certificate: X509Object, _ host: String) -> Bool {
        var name = host
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if isIPAddress(name) {
            return X509_check_ip_asc(certificate.pointer, name, 0) == 1
        }
        if name.hasSuffix(".") { name.removeLast() }   // the absolute form of a name
        let flags = copenssl_check_flag_no_partial_wildcards | copenssl_check_flag_never_check_subject
        let matched = X509_check_host(certificate.pointer, name, name.utf8.count, flags, nil) == 1
        ERR_clear_error()
        return matched
    }

    /// An IPv4 dotted quad or an IPv6 address (with a colon, which a host name never has).
    static func isIPAddress(_ text: String) -> Bool {
        if text.contains(":") { return true }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCII) && part.allSatisfy(\.isNumber)
                && (Int(part) ?? 256) <= 255
        }
    }
}
