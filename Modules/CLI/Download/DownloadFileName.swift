import Foundation
import HTTPTypes

/// How `-d` names the file it writes: from `Content-Disposition`, else the URL's last path
/// segment, else `index`; never a path, never a hidden file, never an existing file.
///
/// ```swift
/// DownloadFileName.suggested(contentDisposition: #"attachment; filename="report.pdf""#, url: url, contentType: nil)
/// // "report.pdf"
/// DownloadFileName.unique("report.pdf") { ["report.pdf", "report-1.pdf"].contains($0) }
/// // "report-2.pdf"
/// ```
enum DownloadFileName {
    /// The name a response suggests.
    ///
    /// - `Content-Disposition`'s `filename*` (RFC 5987, UTF-8 percent-encoded) wins over `filename`.
    /// - Otherwise the URL's last path segment, percent-decoded.
    /// - Only the last segment of either is kept (`/` and `\` separate), control characters (C0,
    ///   DEL, C1) and bidi controls are dropped, and leading dots are removed, so the result is
    ///   never `..` or hidden, and never a name that lists or reads differently from what it is
    ///   (`invoice\u{202E}fdp.exe` would show as `invoiceexe.pdf`).
    /// - A name without an extension gets one from a well-known `Content-Type` (`.json`,
    ///   `.html`, `.txt`, `.xml`), as httpie does.
    /// - Nothing usable left: `index`.
    static func suggested(contentDisposition: String?, url: URL?, contentType: String?) -> String {
        var name = contentDisposition.flatMap(filename(fromDisposition:)).map(sanitized) ?? ""
        if name.isEmpty, let url {
            let segment = url.path(percentEncoded: false).split(separator: "/").last.map(String.init) ?? ""
            name = sanitized(segment)
        }
        if name.isEmpty { name = "index" }
        if !name.contains("."), let ext = contentType.flatMap(extensionFor(contentType:)) {
            // The extension must fit in the 255 bytes too (the content-disposition fuzz target found a 255-byte
            // name made 259 by `.html`, which open(2) refuses).
            name = truncated(name, toUTF8Count: maximumLength - ext.utf8.count - 1) + "." + ext
        }
        return name
    }

    /// `name`, or `name` with `-1`, `-2`… before its extension, whichever `exists` says is free.
    static func unique(_ name: String, exists: (String) -> Bool) -> String {
        guard exists(name) else { return name }
        let (stem, ext) = split(name)
        var attempt = 1
        while true {
            let candidate = stem + "-\(attempt)" + ext
            if !exists(candidate) { return candidate }
            attempt += 1
        }
    }

    /// `("report", ".pdf")`; a name without a dot after its first character has no extension.
    static func split(_ name: String) -> (stem: String, ext: String) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
        return (String(name[..<dot]), String(name[dot...]))
    }

    /// The `filename*` or `filename` parameter of a `Content-Disposition` value.
    static func filename(fromDisposition value: String) -> String? {
        var plain: String?
        var extended: String?
        for parameter in parameters(of: value) {
            switch parameter.name.lowercased() {
            case "filename*": extended = decodeExtended(parameter.value)
            case "filename": plain = parameter.value
            default: break
            }
        }
        return extended ?? plain
    }

    /// `name=value` parameters after the first `;`, quotes removed and `\"` unescaped.
    private static func parameters(of value: String) -> [(name: String, value: String)] {
        var result: [(String, String)] = []
        var characters = Substring(value)
        guard let firstSemicolon = characters.firstIndex(of: ";") else { return [] }
        characters = characters[characters.index(after: firstSemicolon)...]
        while !characters.isEmpty {
            characters = characters.drop { $0 == " " || $0 == "\t" || $0 == ";" }
            guard let equals = characters.firstIndex(of: "=") else { break }
            let name = characters[..<equals].trimmingCharacters(in: .whitespaces)
            characters = characters[characters.index(after: equals)...].drop { $0 == " " }
            var parsed = ""
            if characters.first == "\"" {
                characters = characters.dropFirst()
                var escaping = false
                while let character = characters.first {
                    characters = characters.dropFirst()
                    if escaping { parsed.append(character); escaping = false }
                    else if character == "\\" { escaping = true }
                    else if character == "\"" { break }
                    else { parsed.append(character) }
                }
                characters = characters.drop { $0 != ";" }
            } else {
                let end = characters.firstIndex(of: ";") ?? characters.endIndex
                parsed = characters[..<end].trimmingCharacters(in: .whitespaces)
                characters = characters[end...]
            }
            result.append((name, parsed))
        }
        return result
    }

    /// `UTF-8''na%C3%AFve.txt` → `naïve.txt`; `nil` for another charset or bad escapes.
    private static func decodeExtended(_ value: String) -> String? {
        let parts = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        let charset = parts[0].lowercased()
        guard charset == "utf-8" || charset == "us-ascii" else { return nil }
        return String(parts[2]).removingPercentEncoding
    }

    /// The last segment of `name`, without control characters, bidi controls or leading dots.
    static func sanitized(_ name: String) -> String {
        // Cut at scalars, not characters: a "/" that a prepended mark (U+0600) or a combining mark joins into one
        // character is still a separator to the file system, and a "." so joined still hides a file (found by the
        // content-disposition fuzz target's long run: "\u{600}/c" kept its "/").
        let segments = name.unicodeScalars.split(whereSeparator: { $0 == "/" || $0 == "\\" })
        let visible = (segments.last.map(Array.init) ?? []).filter { !TerminalText.isControl($0) && !TerminalText.isBidiControl($0) }
        var cleaned = String(String.UnicodeScalarView(visible)).trimmingCharacters(in: .whitespaces)
        while cleaned.unicodeScalars.first == "." { cleaned.unicodeScalars.removeFirst() }
        return truncated(cleaned, toUTF8Count: maximumLength)
    }

    /// Most file systems cap a name at 255 bytes.
    static let maximumLength = 255

    /// `name` without its last characters until its UTF-8 form fits `limit` bytes.
    static func truncated(_ name: String, toUTF8Count limit: Int) -> String {
        var name = name
        while name.utf8.count > limit { name.removeLast() }
        return name
    }

    /// A file extension for a few well-known media types.
    static func extensionFor(contentType: String) -> String? {
        let mime = contentType.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        switch mime {
        case "application/json": return "json"
        case "text/html": return "html"
        case "text/plain": return "txt"
        case "application/xml", "text/xml": return "xml"
        default: return mime.hasSuffix("+json") ? "json" : nil
        }
    }
}
