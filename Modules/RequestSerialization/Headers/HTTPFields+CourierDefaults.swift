import HTTPTypes

extension HTTPFields {
    /// The header fields AFNetworking's serializers start with, in their Linux form:
    /// `Accept-Language` (see ``AcceptLanguage``) and `User-Agent` (see ``UserAgent``), e.g.
    ///
    /// ```text
    /// Accept-Language: fr-FR;q=1, en-US;q=0.9
    /// User-Agent: sync/2.1 (Linux 6.1.0-18-amd64; Debian GNU/Linux 12 (bookworm))
    /// ```
    ///
    /// Every serializer's `defaultHeaderFields` is this unless you pass your own (pass `[:]` for
    /// none). The parts are read from the process once, on first use, and kept.
    ///
    /// - Parameter version: your program's version, written after its name in `User-Agent`.
    public static func courierDefaults(version: String? = nil) -> HTTPFields {
        guard let version else { return unversionedDefaults }
        return makeDefaults(userAgent: UserAgent.current(version: version))
    }

    /// The defaults without a version, built once.
    private static let unversionedDefaults = makeDefaults(userAgent: UserAgent.current())

    private static func makeDefaults(userAgent: String) -> HTTPFields {
        var fields = HTTPFields()
        fields[.acceptLanguage] = AcceptLanguage.current
        fields[.userAgent] = userAgent
        return fields
    }
}
