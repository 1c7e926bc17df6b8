import CourierCore

/// The directives of `Cache-Control` fields (RFC 9111 §5.2), request or response: what a private cache
/// reads. Unknown directives are ignored; a malformed number makes its directive count as absent, except
/// `max-age`, which RFC 9111 §4.2.1 says to treat as stale (0). Pure; fuzzed.
struct CacheControl: Equatable {
    var maxAge: Int?
    var noStore = false
    /// `no-cache`: stored responses must be validated before use (with field names too: a private cache
    /// treats `no-cache="Set-Cookie"` as plain `no-cache`, the safe reading).
    var noCache = false
    var mustRevalidate = false
    var isPrivate = false
    var isPublic = false
    var immutable = false
    /// Request: accept a response stale by up to this many seconds; `Int.max` for a bare `max-stale`.
    var maxStale: Int?
    /// Request: the response must stay fresh for at least this many more seconds.
    var minFresh: Int?
    /// Request: answer from the cache or with 504, never the network.
    var onlyIfCached = false

    /// The directives of every value of the fields (they combine as one list).
    init(_ values: [String]) {
        for value in values {
            for directive in Self.directives(value) {
                switch directive.name {
                case "max-age": maxAge = Self.seconds(directive.argument) ?? 0
                case "no-store": noStore = true
                case "no-cache": noCache = true
                case "must-revalidate", "proxy-revalidate": mustRevalidate = true
                case "private": isPrivate = true
                case "public": isPublic = true
                case "immutable": immutable = true
                case "max-stale": maxStale = directive.argument == nil ? Int.max : Self.seconds(directive.argument)
                case "min-fresh": minFresh = Self.seconds(directive.argument)
                case "only-if-cached": onlyIfCached = true
                default: break
                }
            }
        }
    }

    init() {}

    /// `name[=argument]` pairs, names lower-cased, quoted arguments unquoted; commas inside quotes kept.
    static func directives(_ value: String) -> [(name: String, argument: String?)] {
        var result: [(String, String?)] = []
        var current = ""
        var quoted = false
        var escaped = false
        for character in value {
            if escaped { current.append(character); escaped = false; continue }
            if quoted && character == "\\" { escaped = true; current.append(character); continue }
            if character == "\"" { quoted.toggle() }
            if character == "," && !quoted {
                result.append(split(current))
                current = ""
            } else {
                current.append(character)
            }
        }
        result.append(split(current))
        return result.filter { !$0.0.isEmpty }
    }

    private static func split(_ directive: String) -> (String, String?) {
        let trimmed = directive.trimmingOptionalWhitespace()
        guard let equals = trimmed.firstIndex(of: "=") else { return (trimmed.lowercased(), nil) }
        var argument = String(trimmed[trimmed.index(after: equals)...].trimmingOptionalWhitespace())
        if argument.count >= 2, argument.hasPrefix("\""), argument.hasSuffix("\"") { argument = String(argument.dropFirst().dropLast()) }
        return (trimmed[..<equals].trimmingOptionalWhitespace().lowercased(), argument)
    }

    /// A delta-seconds value: digits only; past 2^31 it saturates (RFC 9111 §1.2.2).
    static func seconds(_ text: String?) -> Int? {
        guard let text, !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        if text.utf8.count > 10 { return 2_147_483_648 }
        return min(Int(text) ?? 2_147_483_648, 2_147_483_648)
    }
}
