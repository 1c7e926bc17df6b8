import FoundationEssentials

/// The Netscape cookie file curl reads with `-b` and writes with `-c`: one cookie a line, seven fields
/// separated by TABs — domain (with a leading dot for a domain cookie; `#HttpOnly_` before it for an HttpOnly
/// one), `TRUE` when subdomains get it, path, `TRUE` for secure, the expiry in seconds since 1970 (`0` for a
/// session cookie), name, value. Lines starting with `#` (but `#HttpOnly_`) are comments. `SameSite` has no
/// field and is not kept. Pure: text in, cookies out, and back.
enum NetscapeCookieFile {
    static let header = """
        # Netscape HTTP Cookie File
        # https://curl.se/docs/http-cookies.html
        # Written by Courier (CourierCookies). Edit at your own risk.


        """

    private static let httpOnlyPrefix = "#HttpOnly_"
    /// The latest expiry kept, in seconds since 1970: the last second of the year 9999, where HTTP dates end. A file
    /// may hold any count up to 2⁶³ − 1, and 2⁶³ − 1 as a `Double` rounds up past what an `Int64` holds, so writing
    /// the file back trapped.
    static let latestExpiry: Int64 = 253_402_300_799

    /// The cookies of `text`, and how many lines were not cookies the format allows (skipped, as curl skips them).
    /// Lines and fields are cut at LF and TAB bytes, not characters: a combining mark after a TAB must not hide it.
    static func cookies(from text: String, now: Date) -> (cookies: [Cookie], skipped: Int) {
        var cookies: [Cookie] = []
        var skipped = 0
        let httpOnly = Array(httpOnlyPrefix.utf8)
        for rawLine in text.utf8.split(separator: UInt8(ascii: "\n")) {
            var line = rawLine[...]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            var isHTTPOnly = false
            if line.starts(with: httpOnly) {
                isHTTPOnly = true
                line = line.dropFirst(httpOnly.count)
            } else if line.first == UInt8(ascii: "#") || line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) {
                continue
            }
            let fields = line.split(separator: 0x09, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            guard fields.count == 7 || fields.count == 6,
                  let expiry = Int64(fields[4]), expiry >= 0,
                  !fields[0].isEmpty, fields[2].utf8.first == UInt8(ascii: "/") else {
                skipped += 1
                continue
            }
            var domain = fields[0].lowercased()
            if domain.utf8.first == UInt8(ascii: ".") { domain = String(decoding: domain.utf8.dropFirst(), as: UTF8.self) }
            guard !domain.isEmpty else { skipped += 1; continue }
            cookies.append(Cookie(
                name: fields[5], value: fields.count == 7 ? fields[6] : "", domain: domain, hostOnly: fields[1].uppercased() != "TRUE",
                path: fields[2], expires: expiry == 0 ? nil : Date(timeIntervalSince1970: TimeInterval(min(expiry, latestExpiry))),
                secure: fields[3].uppercased() == "TRUE", httpOnly: isHTTPOnly, created: now
            ))
        }
        return (cookies, skipped)
    }

    /// The file's text for `cookies`: the header, then one line each, oldest first. A cookie whose name,
    /// value, domain or path holds a TAB, CR or LF cannot be written in this format and is left out.
    static func text(for cookies: [Cookie]) -> String {
        var text = header
        for cookie in cookies.sorted(by: { $0.created < $1.created }) {
            let fields = [cookie.name, cookie.value, cookie.domain, cookie.path]
            guard !fields.contains(where: { $0.utf8.contains { $0 == 0x09 || $0 == 0x0A || $0 == 0x0D } }) else { continue }
            let domain = (cookie.httpOnly ? httpOnlyPrefix : "") + (cookie.hostOnly ? "" : ".") + cookie.domain
            let expiry = cookie.expires.map { String(Int64(min(max(1, $0.timeIntervalSince1970.rounded(.up)), Double(latestExpiry)))) } ?? "0"
            text += [
                domain, cookie.hostOnly ? "FALSE" : "TRUE", cookie.path, cookie.secure ? "TRUE" : "FALSE",
                expiry, cookie.name, cookie.value,
            ].joined(separator: "\t") + "\n"
        }
        return text
    }
}
