import FoundationEssentials

extension Body {
    /// The chunk size used when reading files: large enough for few system calls, small enough to
    /// keep memory flat.
    public static let defaultFileChunkSize = 256 * 1024

    /// One piece of a body laid out ahead of time: bytes in memory or a byte range of a file.
    ///
    /// A body made of segments has a known length and can be replayed; a transport may read the
    /// segments straight into its send buffer (files with `pread`), which is how multipart
    /// uploads of large files run at the speed of a plain file upload.
    public enum Segment: Sendable, Hashable {
        /// These bytes.
        case bytes(Data)
        /// `length` bytes of the file at `path`, from byte `offset`. The file is opened when the
        /// body is read; a file that has fewer bytes by then fails the read with a ``FileError``.
        case file(path: String, offset: Int64, length: Int64)

        /// The number of bytes this segment adds to the body (a negative file length counts as 0).
        public var length: Int64 {
            switch self {
            case .bytes(let data): return Int64(data.count)
            case .file(_, _, let length): return Swift.max(0, length)
            }
        }
    }

    /// A body made of `segments`, read in order: known length (their sum), replayable, constant
    /// memory for files, which are read `chunkSize` bytes at a time.
    ///
    /// ```swift
    /// let body = Body(segments: [.bytes(Data("head\r\n".utf8)), .file(path: "/tmp/a.bin", offset: 0, length: 1024)])
    /// ```
    public convenience init(segments: [Segment], chunkSize: Int = Body.defaultFileChunkSize) {
        let total = segments.reduce(Int64(0)) { $0 + $1.length }
        let chunk = Swift.max(1, chunkSize)
        self.init(
            storage: .producer {
                var reader = SegmentReader(segments: segments, chunkSize: chunk)
                return Iterator.Next { try reader.next() }
            },
            length: .known(total),
            iterationBehavior: .multiple,
            segments: segments
        )
    }

    /// A body that reads a file lazily, chunk by chunk: known length, replayable, constant memory.
    ///
    /// The file is opened and measured now, so a missing or unreadable file fails here with a
    /// ``FileError`` rather than halfway through a transfer.
    public convenience init(contentsOfFileAt path: String, chunkSize: Int = Body.defaultFileChunkSize) throws {
        let size = try FileDescriptor.openRegularFileForReading(path).size()
        self.init(segments: [.file(path: path, offset: 0, length: size)], chunkSize: chunkSize)
    }
}

/// Walks a list of segments for one iteration of a body, opening each file when its turn comes.
private struct SegmentReader {
    let segments: [Body.Segment]
    let chunkSize: Int
    private var index = 0
    /// Bytes of the current segment already delivered.
    private var consumed: Int64 = 0
    private var file: FileDescriptor?

    init(segments: [Body.Segment], chunkSize: Int) {
        self.segments = segments
        self.chunkSize = chunkSize
    }

    mutating func next() throws -> ArraySlice<UInt8>? {
        while index < segments.count {
            switch segments[index] {
            case .bytes(let data):
                // Large buffers go out in chunks, so a reader never holds a second copy of all of it.
                guard consumed < Int64(data.count) else {
                    advance()
                    continue
                }
                let start = data.startIndex + Int(consumed)
                let end = Swift.min(start + chunkSize, data.endIndex)
                consumed += Int64(end - start)
                return ArraySlice(data[start..<end])
            case .file(let path, let offset, let length):
                guard consumed < length, offset >= 0 else {
                    advance()
                    continue
                }
                let descriptor = try file ?? FileDescriptor.openRegularFileForReading(path)
                file = descriptor
                let want = Int(Swift.min(Int64(chunkSize), length - consumed))
                let bytes = try descriptor.read(upTo: want, at: offset + consumed)
                guard !bytes.isEmpty else {
                    throw FileError(operation: .read, path: path, reason: "the file shrank while it was being sent")
                }
                consumed += Int64(bytes.count)
                return bytes
            }
        }
        return nil
    }

    private mutating func advance() {
        index += 1
        consumed = 0
        file = nil
    }
}
