@testable import CourierCLI
import CourierCore
@testable import CourierMultipart
import Foundation

/// File names from servers and for forms. `SuggestedFileName` (the name a library download to
/// `.suggested(in:)` gets) and `DownloadFileName` (the name `courier -d` writes, from it) never give a path,
/// a hidden or empty name, a name with control or bidi characters, or one longer than a file system allows,
/// whatever the header and URL say.
/// `DispositionEscaping` (a form's field and file names) never lets a quote, CR, LF or NUL through, and changes
/// nothing else.
enum ContentDispositionFuzz: FuzzTarget {
    static let name = "content-disposition"

    static func run(_ input: FuzzInput) {
        let contentType = ["application/json", "text/html; charset=utf-8", "text/plain", "application/xml", "image/png", ""][input.int(in: 0...5)]
        let urlPath = input.string(upTo: 64)
        let header = String(decoding: input.rest(), as: UTF8.self)

        _ = SuggestedFileName.filename(fromDisposition: header)
        let url = URL(string: "http://127.0.0.1/" + (urlPath.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? ""))
        if let suggested = SuggestedFileName.from(contentDisposition: header, url: url) { check(suggested, from: header) }
        let name = DownloadFileName.suggested(contentDisposition: header, url: url, contentType: contentType.isEmpty ? nil : contentType)
        check(name, from: header)
        check(SuggestedFileName.sanitized(header), from: header, mayBeEmpty: true)

        let escaped = DispositionEscaping.escape(header)
        let escapable: (UInt8) -> Bool = { $0 == 0x22 || $0 == 0x0D || $0 == 0x0A || $0 == 0 }
        precondition(!escaped.utf8.contains(where: escapable), "a quote, line break or NUL survived escaping")
        if !header.utf8.contains(where: escapable) {
            precondition(escaped == header, "escaping changed a name that needed nothing")
        }
    }

    /// The properties of a file name a download may create.
    static func check(_ name: String, from header: String, mayBeEmpty: Bool = false) {
        precondition(mayBeEmpty || !name.isEmpty, "an empty file name from \(header.debugDescription)")
        // Scalars, not characters: the file system sees bytes, and a mark can join a "/" or "." into another character.
        precondition(!name.unicodeScalars.contains { $0 == "/" || $0 == "\\" }, "a path \(name.debugDescription) from \(header.debugDescription)")
        precondition(name.unicodeScalars.first != ".", "a hidden or dot name \(name.debugDescription)")
        precondition(name.utf8.count <= 255, "a name of \(name.utf8.count) bytes, longer than a file system allows")
        precondition(!name.unicodeScalars.contains { $0.isControlCharacter || $0.isBidiControl },
                     "control or bidi characters in \(name.debugDescription)")
    }
}
