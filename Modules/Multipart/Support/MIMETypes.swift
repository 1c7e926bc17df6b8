import CourierCore
import FoundationEssentials

/// MIME types by file extension, for file parts that name none: the system's `/etc/mime.types`
/// when it has the extension, then a built-in table, then `application/octet-stream`.
///
/// ```swift
/// MIMETypes.system.type(forPath: "/tmp/photo.PNG")   // "image/png"
/// MIMETypes.system.type(forExtension: "weird")      // "application/octet-stream"
/// ```
///
/// The system file wins where it speaks, so the answers match the rest of the machine (`file`,
/// mail clients, web servers): Debian's file maps `.cer` to `application/pkix-cert` (RFC 2585),
/// where AFNetworking, asking Apple's type system, said `application/x-x509-ca-cert` — the
/// built-in table's answer, used when the system has no file or no entry.
public struct MIMETypes: Sendable {
    /// The fallback for an extension nobody knows.
    public static let octetStream = "application/octet-stream"

    /// Lower-cased extension → type, from the system file.
    private let systemTypes: [String: String]

    /// The table read once from `/etc/mime.types` (empty when the file is missing).
    public static let system = MIMETypes(systemFile: "/etc/mime.types")

    /// The built-in table alone, as on a machine without `/etc/mime.types`.
    public static let builtIn = MIMETypes(mimeTypesText: "")

    /// A table from the contents of a `mime.types` file: a type and its extensions on each line,
    /// `#` comments.
    public init(mimeTypesText text: String) {
        var types: [String: String] = [:]
        for line in text.split(whereSeparator: \.isNewline) {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let type = words.first, !type.hasPrefix("#"), type.contains("/") else { continue }
            for word in words.dropFirst() {
                if word.hasPrefix("#") { break }
                let key = word.lowercased()
                // The first line naming an extension wins, as in Apache and nginx.
                if types[key] == nil { types[key] = String(type) }
            }
        }
        systemTypes = types
    }

    /// A table from the `mime.types` file at `path`, or the built-in table alone when it cannot be read.
    public init(systemFile path: String) {
        let text = (try? FileDescriptor.openRegularFileForReading(path)).flatMap { file -> String? in
            guard let size = try? file.size(), let bytes = try? file.read(upTo: Int(size), at: 0) else { return nil }
            return String(decoding: bytes, as: UTF8.self)
        }
        self.init(mimeTypesText: text ?? "")
    }

    /// The type for a file extension (without the dot, any case).
    public func type(forExtension fileExtension: String) -> String {
        let key = fileExtension.lowercased()
        return systemTypes[key] ?? BuiltInMIMETypes.table[key] ?? Self.octetStream
    }

    /// The type for a file name or path, by the extension of its last component.
    public func type(forPath path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return Self.octetStream }
        return type(forExtension: String(name[name.index(after: dot)...]))
    }
}
