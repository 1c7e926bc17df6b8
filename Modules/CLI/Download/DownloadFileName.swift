import Foundation
import CourierCore
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
    /// The name a response suggests: Core's ``SuggestedFileName`` (never a path, hidden, or with
    /// control or bidi characters), else `index`; a name without an extension gets one from a
    /// well-known `Content-Type` (`.json`, `.html`, `.txt`, `.xml`), as httpie does.
    static func suggested(contentDisposition: String?, url: URL?, contentType: String?) -> String {
        var name = SuggestedFileName.from(contentDisposition: contentDisposition, url: url) ?? "index"
        if !name.contains("."), let ext = contentType.flatMap(extensionFor(contentType:)) {
            // The extension must fit in the 255 bytes too (the content-disposition fuzz target found a 255-byte
            // name made 259 by `.html`, which open(2) refuses).
            name = SuggestedFileName.truncated(name, toUTF8Count: SuggestedFileName.maximumLength - ext.utf8.count - 1) + "." + ext
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
