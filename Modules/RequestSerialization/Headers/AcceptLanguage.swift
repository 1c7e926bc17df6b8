/// AFNetworking's `Accept-Language` value, from the languages a Linux process is set up for.
///
/// AFNetworking reads `NSLocale.preferredLanguages`; Linux has no such list, so it is read from
/// the environment as GNU gettext reads it:
/// - the effective messages locale is the first non-empty of `LC_ALL`, `LC_MESSAGES`, `LANG`;
/// - `LANGUAGE` (a colon-separated list, e.g. `fr:de_AT`) comes first, but only when that
///   locale is set and is not `C` or `POSIX` (gettext ignores it then too);
/// - then the messages locale itself, as the last choice.
///
/// Each entry loses its codeset and modifier and uses `-`: `en_US.UTF-8@euro` → `en-US`.
/// `C`, `POSIX`, empty entries and anything that is not a plain language tag are skipped,
/// duplicates (ignoring case) are dropped.
public enum AcceptLanguage {
    /// At most this many languages are sent, as in AFNetworking.
    public static let maximumCount = 6

    /// The value sent when no usable language is set (an unset or `C` locale): `en`, the
    /// language of a program's untranslated text, rather than no header, so servers that
    /// localize see the same choice every time.
    public static let fallback = "en"

    /// The value for this process, from its environment as it was when first read.
    public static var current: String { value(for: SystemFacts.current.languages) }

    /// The preferred languages, best first, from `environment` (e.g. `ProcessInfo.processInfo.environment`).
    ///
    /// ```swift
    /// AcceptLanguage.preferredLanguages(environment: ["LANGUAGE": "fr:de", "LANG": "en_US.UTF-8"])
    /// // ["fr", "de", "en-US"]
    /// ```
    public static func preferredLanguages(environment: [String: String]) -> [String] {
        let locale = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy
            .compactMap { environment[$0] }
            .first { !$0.isEmpty }
        guard let locale, let localeTag = languageTag(fromLocale: locale) else { return [] }

        var candidates: [String] = []
        if let list = environment["LANGUAGE"] {
            candidates = list.split(separator: ":").compactMap { languageTag(fromLocale: String($0)) }
        }
        candidates.append(localeTag)

        var seen = Set<String>()
        return candidates.filter { seen.insert($0.lowercased()).inserted }
    }

    /// The header value for `languages`: at most ``maximumCount``, with q = 1, 0.9, … 0.5
    /// printed as `%0.1g` prints them, joined by `", "`; ``fallback`` when the list is empty.
    ///
    /// ```swift
    /// AcceptLanguage.value(for: ["en-US", "fr-FR", "de"])   // "en-US;q=1, fr-FR;q=0.9, de;q=0.8"
    /// ```
    public static func value(for languages: [String]) -> String {
        guard !languages.isEmpty else { return fallback }
        return languages.prefix(maximumCount).enumerated()
            .map { index, language in language + ";q=" + (index == 0 ? "1" : "0." + String(10 - index)) }
            .joined(separator: ", ")
    }

    /// The language tag of a locale name (`en_US.UTF-8@euro` → `en-US`), or `nil` for `C`,
    /// `POSIX`, an empty name, or anything but letters, digits and separators.
    public static func languageTag(fromLocale locale: String) -> String? {
        let name = locale.prefix { $0 != "." && $0 != "@" }
        guard !name.isEmpty, name != "C", name != "POSIX" else { return nil }
        let tag = String(name.map { $0 == "_" ? "-" : $0 })
        let isPlainTag = tag.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"):
                return true
            default:
                return false
            }
        }
        // A tag starts with a language of letters: `en`, `fil`, not `-x` or `1`.
        guard isPlainTag, let first = tag.utf8.first, first != UInt8(ascii: "-"), !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            return nil
        }
        return tag
    }
}
