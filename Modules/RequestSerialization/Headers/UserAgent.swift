/// AFNetworking's default `User-Agent`, in its Linux form:
/// `<executable>/<version> (Linux <kernel release>; <distribution>)`, e.g.
/// `courier/1.0 (Linux 6.1.0-18-amd64; Debian GNU/Linux 12 (bookworm))`.
///
/// - The executable is the last path component of `CommandLine.arguments[0]` (or of
///   `/proc/self/exe` when that is empty); the version only when one is given, otherwise the
///   product is the name alone.
/// - The kernel release is `uname -r`'s; the distribution is `PRETTY_NAME` from `/etc/os-release`
///   (or `/usr/lib/os-release`), left out when there is none.
/// - Forced to ASCII, as AFNetworking forces it: non-ASCII and control characters are dropped.
///   Inside the product (name and version) every character that may not appear in an HTTP token
///   (space, `/`, `(`, `;`…) becomes `-`, so the product stays one token; unbalanced
///   parentheses are dropped from the comment, so it stays one comment.
public enum UserAgent {
    /// The value for this process, with `version` after the name when given.
    public static func current(version: String? = nil) -> String {
        value(
            executable: SystemFacts.current.executable, version: version,
            kernelRelease: SystemFacts.current.kernelRelease, distribution: SystemFacts.current.distribution
        )
    }

    /// The value from its parts.
    ///
    /// ```swift
    /// UserAgent.value(executable: "sync", version: "2.1", kernelRelease: "6.1.0", distribution: "Debian GNU/Linux 12 (bookworm)")
    /// // "sync/2.1 (Linux 6.1.0; Debian GNU/Linux 12 (bookworm))"
    /// ```
    public static func value(executable: String, version: String?, kernelRelease: String?, distribution: String?) -> String {
        var product = token(executable)
        if product.isEmpty { product = "Courier" }
        if let version, case let versionToken = token(version), !versionToken.isEmpty {
            product += "/" + versionToken
        }
        var platform = "Linux"
        if let kernelRelease, case let release = commentText(kernelRelease), !release.isEmpty {
            platform += " " + release
        }
        var details = [platform]
        if let distribution, case let name = commentText(distribution), !name.isEmpty {
            details.append(name)
        }
        return product + " (" + details.joined(separator: "; ") + ")"
    }

    /// `PRETTY_NAME` from the text of an os-release file, unquoted, or `nil`.
    ///
    /// ```swift
    /// UserAgent.distribution(fromOSRelease: "NAME=Debian\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n")
    /// // "Debian GNU/Linux 12 (bookworm)"
    /// ```
    public static func distribution(fromOSRelease text: String) -> String? {
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            guard trimmed.hasPrefix("PRETTY_NAME=") else { continue }
            let value = unquoted(trimmed.dropFirst("PRETTY_NAME=".count))
            return value.isEmpty ? nil : value
        }
        return nil
    }

    /// An os-release value without its quotes and shell escapes (`\"`, `\\`, `` \` ``, `\$`).
    private static func unquoted(_ raw: Substring) -> String {
        var text = raw.drop { $0 == " " }
        while text.last == " " || text.last == "\t" || text.last == "\r" { text = text.dropLast() }
        guard let quote = text.first, quote == "\"" || quote == "'" else { return String(text) }
        text = text.dropFirst()
        if text.last == quote { text = text.dropLast() }
        guard quote == "\"" else { return String(text) }
        var result = ""
        var escaping = false
        for character in text {
            if escaping || character != "\\" {
                result.append(character)
                escaping = false
            } else {
                escaping = true
            }
        }
        return result
    }

    /// ASCII text without control characters.
    private static func ascii(_ text: String) -> [UInt8] {
        text.utf8.filter { $0 >= 0x20 && $0 < 0x7F }
    }

    /// `text` as one HTTP token: ASCII only, any other non-token character as `-`.
    private static func token(_ text: String) -> String {
        let bytes = ascii(text).map { byte -> UInt8 in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return byte
            default:
                return "!#$%&'*+-.^_`|~".utf8.contains(byte) ? byte : UInt8(ascii: "-")
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `text` fit for an HTTP comment: ASCII only, no backslash, parentheses kept only when
    /// balanced, single spaces.
    private static func commentText(_ text: String) -> String {
        var bytes = ascii(text).filter { $0 != UInt8(ascii: "\\") }
        var depth = 0
        var balanced = true
        for byte in bytes {
            if byte == UInt8(ascii: "(") { depth += 1 }
            if byte == UInt8(ascii: ")") { depth -= 1 }
            if depth < 0 { balanced = false }
        }
        if !balanced || depth != 0 {
            bytes.removeAll { $0 == UInt8(ascii: "(") || $0 == UInt8(ascii: ")") }
        }
        // One space between words, none at the ends: removals can leave runs.
        let words = bytes.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: true)
        return words.map { String(decoding: $0, as: UTF8.self) }.joined(separator: " ")
    }
}
