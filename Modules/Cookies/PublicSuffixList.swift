internal import CPSL

/// Which domains are public suffixes (`com`, `co.uk`, `github.io`): a server may not set a cookie for
/// one, or every site under it would receive it (a "supercookie").
///
/// ``system`` is libpsl's newest list: Debian's `publicsuffix` package when it is newer than the list built
/// into libpsl, so the list is updated with the system, not with Courier. libcurl loads libpsl for its own
/// cookie engine already, so a curl consumer loads no new library. An unknown top-level domain counts as a
/// public suffix (the list's `*` rule), as browsers count it.
///
/// ```swift
/// PublicSuffixList.system.isPublicSuffix("co.uk")        // true
/// PublicSuffixList.system.isPublicSuffix("example.co.uk") // false
/// let jar = CookieJar(publicSuffixes: PublicSuffixList(suffixes: ["test"]))   // a list of your own
/// ```
public struct PublicSuffixList: Sendable {
    private let check: @Sendable (String) -> Bool

    /// libpsl's newest list (the system's, or the one built into libpsl).
    public static let system = PublicSuffixList(LibPSL.shared)

    /// A list of exactly these suffixes (lower case, no leading dot): for tests, or a private registry.
    public init(suffixes: Set<String>) {
        check = { suffixes.contains($0) }
    }

    private init(_ library: LibPSL) {
        check = { library.isPublicSuffix($0) }
    }

    /// True when `domain` (lower case, no leading dot) is a public suffix.
    public func isPublicSuffix(_ domain: String) -> Bool {
        check(domain)
    }
}

/// libpsl's context, loaded once for the process and never freed.
final class LibPSL: @unchecked Sendable {
    // @unchecked: `context` is written once, in init, and only read afterwards; libpsl's look-ups only read the
    // context and are documented as thread-safe.
    private let context: OpaquePointer?

    static let shared = LibPSL()

    private init() {
        // The newest of the system's list and libpsl's built-in one; the built-in one if loading fails.
        context = psl_latest(nil) ?? psl_builtin()
    }

    func isPublicSuffix(_ domain: String) -> Bool {
        // With no list at all, every domain is treated as a suffix: a cookie then stays with its host.
        guard let context else { return true }
        return psl_is_public_suffix2(context, domain, cpsl_type_any()) != 0
    }
}
