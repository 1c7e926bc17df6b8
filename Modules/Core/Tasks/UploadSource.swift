import FoundationEssentials

/// Where an upload task's body comes from.
public enum UploadSource: Sendable {
    /// Bytes in memory.
    case data(Data)
    /// A file, read lazily in chunks; a missing or unreadable file fails the task with a ``FileError``.
    case file(path: String)
    /// Any body; a `.single` one cannot follow a 307/308 redirect or be retried.
    case body(Body)

    func makeBody() throws -> Body {
        switch self {
        case .data(let data): return Body(data)
        case .file(let path): return try Body(contentsOfFileAt: path)
        case .body(let body): return body
        }
    }
}
