import CourierCore
import FoundationEssentials

extension SecurityPolicy {
    /// Trusts `trust.certificateChain` for `trust.host`, or throws a ``CourierCore/TrustError`` naming the
    /// host and saying why; a pin mismatch lists the chain's real pins (`sha256/…`) so the configuration
    /// can be fixed by copy and paste. The transport calls this inside the TLS handshake.
    public func evaluate(_ trust: ServerTrust) throws {
        if let reason = refusal(chain: trust.certificateChain, domain: trust.host) {
            throw TrustError(host: trust.host, reason: reason, serverTrust: trust)
        }
    }

    /// AFNetworking's `evaluateServerTrust:forDomain:`: whether to trust `chain` (DER, leaf first) for
    /// `domain`; `nil` checks no host name.
    public func evaluate(chain: [[UInt8]], domain: String?) -> Bool {
        refusal(chain: chain, domain: domain) == nil
    }

    /// `nil` to trust the chain, else the reason to refuse it: the decision table of behaviour-spec §3.10.
    func refusal(chain: [[UInt8]], domain rawDomain: String?) -> String? {
        let domain = rawDomain.flatMap { $0.isEmpty ? nil : $0 }
        // Step 1 (R1): checking a name on certificates accepted as invalid proves nothing without a pin.
        if domain != nil, allowInvalidCertificates, validatesDomainName, pinningMode == .none || pinCount == 0 {
            return "validatesDomainName with allowInvalidCertificates requires pinning: "
                + "pin a certificate or a public key, or set validatesDomainName to false"
        }
        let certificates = chain.compactMap { X509Object(der: $0) }
        guard !certificates.isEmpty, certificates.count == chain.count else {
            return chain.isEmpty ? "the server presented no certificate" : "the server's chain holds bytes that are not a certificate"
        }
        // Step 2: the TLS-server policy (purpose, and the host when there is one) or basic X.509.
        let host = validatesDomainName ? domain : nil
        var anchored = ChainVerifier(anchors: systemAnchors, serverPurpose: validatesDomainName, host: host)

        switch pinningMode {
        case .none:
            // Step 3.
            if allowInvalidCertificates { return nil }
            return anchored.failure(of: certificates).map(explained)

        case .certificate:
            // Step 4.
            if !allowInvalidCertificates, let failure = anchored.failure(of: certificates) {
                return explained(failure)
            }
            // Step 5: valid with the pinned certificates as the only anchors (a pinned leaf or
            // intermediate ends the path), then one of them in the path.
            let pinned = pinnedCertificates.compactMap { X509Object(der: $0.derBytes) }
            anchored.anchors = .only(pinned)
            anchored.partialChain = true
            switch anchored.verify(certificates) {
            case .invalid(let failure):
                return "not valid with the pinned certificates as anchors: \(failure); " + pinsHint(certificates)
            case .valid(let path):
                let pinnedBytes = Set(pinnedCertificates.map(\.derBytes))
                if path.contains(where: pinnedBytes.contains) || chain.contains(where: pinnedBytes.contains) {
                    return nil
                }
                return "no certificate of the chain is pinned; " + pinsHint(certificates)
            }

        case .publicKey:
            // The keys of the chain as it really links (AFNetworking: the chain the trust built),
            // never of certificates merely sent along: a server could append a pinned
            // intermediate to a chain of its own. Step 4 gives the verified path, which may end at
            // an anchor the server did not send; with invalid certificates allowed, the path is
            // the one the signatures make from the leaf.
            let keys: [[UInt8]]
            if allowInvalidCertificates {
                keys = X509Object.signaturePath(certificates).compactMap(\.subjectPublicKeyInfo)
            } else {
                switch anchored.verify(certificates) {
                case .invalid(let failure):
                    return explained(failure)
                case .valid(let path):
                    keys = path.compactMap { X509Object(der: $0)?.subjectPublicKeyInfo }
                }
            }
            // Step 6: any key of the chain equals any pinned key (unparseable pins are ignored).
            // Pinned certificates compare by their key's bytes, pins by digest: no failed digest
            // can make two different keys look alike.
            let pinnedCertificateKeys = Set(pinnedCertificates.compactMap { X509Object(der: $0.derBytes)?.subjectPublicKeyInfo })
            let pinnedKeys = Set(pinnedPublicKeys)
            let matches = keys.contains { key in
                if pinnedCertificateKeys.contains(key) { return true }
                let pin = PublicKeyPin(subjectPublicKeyInfo: key)
                return pin.sha256Digest.count == 32 && pinnedKeys.contains(pin)
            }
            if matches { return nil }
            return "no public key of the chain is pinned; " + pinsHint(certificates)
        }
    }

    private var systemAnchors: ChainVerifier.Anchors {
        switch trustAnchors {
        case .system: return .system
        case .certificates(let certificates): return .only(certificates.compactMap { X509Object(der: $0.derBytes) })
        }
    }

    /// A failure of the check against the anchors, saying which anchors when the path was at fault.
    private func explained(_ failure: String) -> String {
        failure.hasPrefix(ChainVerifier.pathFailurePrefix) ? "not trusted by \(anchorsName): \(failure)" : failure
    }

    private var anchorsName: String {
        switch trustAnchors {
        case .system: return "the system's trust store"
        case .certificates: return "the configured anchors"
        }
    }

    /// `the server's chain pins: sha256/… (/CN=leaf), sha256/… (/CN=CA)`.
    private func pinsHint(_ certificates: [X509Object]) -> String {
        "the server's chain pins: " + Self.pinList(certificates)
    }

    static func pinList(_ certificates: [X509Object]) -> String {
        certificates.map { certificate in
            let pin = certificate.subjectPublicKeyInfo.map { "\(PublicKeyPin(subjectPublicKeyInfo: $0))" } ?? "no public key"
            return "\(pin) (\(certificate.subject))"
        }.joined(separator: ", ")
    }

    /// The pins of a chain (DER, leaf first) as ``evaluate(_:)``'s errors list them, e.g. for a hint:
    /// `sha256/… (/O=Courier Tests/CN=localhost), sha256/… (…)`.
    public static func pinDescription(ofChain chain: [[UInt8]]) -> String {
        pinList(chain.compactMap { X509Object(der: $0) })
    }
}
