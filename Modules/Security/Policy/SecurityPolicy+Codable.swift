extension SecurityPolicy: Codable {
    private enum CodingKeys: String, CodingKey {
        case pinningMode, allowInvalidCertificates, validatesDomainName, pinnedCertificates, pinnedPublicKeys
        case trustAnchors
    }

    /// Decodes what ``encode(to:)`` wrote; missing keys take the defaults of ``init(pinningMode:pinnedCertificates:pinnedPublicKeys:allowInvalidCertificates:validatesDomainName:trustAnchors:)``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let anchors = try container.decodeIfPresent([Certificate].self, forKey: .trustAnchors)
        self.init(
            pinningMode: try container.decodeIfPresent(PinningMode.self, forKey: .pinningMode) ?? .none,
            pinnedCertificates: try container.decodeIfPresent(Set<Certificate>.self, forKey: .pinnedCertificates) ?? [],
            pinnedPublicKeys: try container.decodeIfPresent(Set<PublicKeyPin>.self, forKey: .pinnedPublicKeys) ?? [],
            allowInvalidCertificates: try container.decodeIfPresent(Bool.self, forKey: .allowInvalidCertificates) ?? false,
            validatesDomainName: try container.decodeIfPresent(Bool.self, forKey: .validatesDomainName) ?? true,
            trustAnchors: anchors.map { .certificates($0) } ?? .system
        )
    }

    /// Mode, flags, pins (certificates as Base64 DER, keys as `sha256/…`) and the anchors (absent for the
    /// system's, else their certificates); AFNetworking's `NSSecureCoding` keeps the first four.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(pinningMode, forKey: .pinningMode)
        try container.encode(allowInvalidCertificates, forKey: .allowInvalidCertificates)
        try container.encode(validatesDomainName, forKey: .validatesDomainName)
        // Sorted, so one policy always encodes to the same bytes.
        try container.encode(pinnedCertificates.sorted { $0.derBytes.lexicographicallyPrecedes($1.derBytes) }, forKey: .pinnedCertificates)
        try container.encode(pinnedPublicKeys.sorted { $0.description < $1.description }, forKey: .pinnedPublicKeys)
        if case .certificates(let anchors) = trustAnchors {
            try container.encode(anchors, forKey: .trustAnchors)
        }
    }
}
