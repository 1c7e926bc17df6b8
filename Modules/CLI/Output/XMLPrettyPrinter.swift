import CourierXML
import Foundation

/// Re-indents an XML body for `--pretty`, as `xmllint --format` does, with CourierXML (so the
/// same safety rules apply: no entity is expanded, nothing external is loaded).
///
/// ```swift
/// XMLPrettyPrinter.format(Array("<a><b>x</b></a>".utf8), charset: nil)
/// // <?xml version="1.0" encoding="UTF-8"?>
/// // <a>
/// //   <b>x</b>
/// // </a>
/// ```
/// Returns `nil` for a body CourierXML refuses (malformed, truncated, an entity declaration…);
/// the caller prints it as it is.
enum XMLPrettyPrinter {
    /// The indented document, UTF-8, ending with a newline; `nil` when `bytes` are not XML
    /// CourierXML accepts. `charset` is the one the `Content-Type` named, if any.
    static func format(_ bytes: [UInt8], charset: String?) -> [UInt8]? {
        guard let formatted = try? XMLFormatter.format(Data(bytes), charset: charset) else { return nil }
        return Array(formatted.utf8)
    }
}
