import FoundationEssentials

extension Body {
    /// The chunk size used when reading files: large enough for few system calls, small enough to
    /// keep memory flat.
    public static let defaultFileChunkSize = 256 * 1024

    /// A body that reads a file lazily, chunk by chunk: known length, replayable, constant memory.
    ///
    /// The file is opened and measured now, so a missing or unreadable file fails here with a
    /// ``FileError`` rather than halfway through a transfer.
    public convenience init(contentsOfFileAt path: String, chunkSize: Int = Body.defaultFileChunkSize) throws {
        let probe = try FileDescriptor.openForReading(path)
        let size = try probe.size()
        let chunk = Swift.max(1, chunkSize)
        self.init(
            storage: .producer {
                var descriptor: FileDescriptor? = nil
                var offset: Int64 = 0
                return Iterator.Next {
                    guard offset < size else { return nil }
                    let file: FileDescriptor
                    if let descriptor {
                        file = descriptor
                    } else {
                        file = try FileDescriptor.openForReading(path)
                        descriptor = file
                    }
                    let want = Int(Swift.min(Int64(chunk), size - offset))
                    let bytes = try file.read(upTo: want, at: offset)
                    guard !bytes.isEmpty else {
                        throw FileError(operation: .read, path: path, reason: "the file shrank while it was being sent")
                    }
                    offset += Int64(bytes.count)
                    return bytes
                }
            },
            length: .known(size),
            iterationBehavior: .multiple,
            filePath: path
        )
    }
}
