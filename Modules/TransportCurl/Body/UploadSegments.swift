import CourierCore
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A body laid out as segments (a file, or a multipart form of fields and files), copied and
/// read with `pread` straight into curl's send buffer on the curl thread: no chunk arrays, no
/// hops between threads, page-cache reads as short as curl's own `FILE *` uploads. Loop thread only.
final class UploadSegments {
    private let segments: [Body.Segment]
    private var index = 0
    /// Bytes of the current segment already sent.
    private var consumed: Int64 = 0
    private var descriptor: Int32 = -1

    init(segments: [Body.Segment]) {
        self.segments = segments
    }

    deinit { close() }

    /// Fills as much of `buffer` as the remaining segments allow; 0 at the end of the body.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, FileError> {
        guard let base = buffer.baseAddress else { return .success(0) }
        var filled = 0
        while filled < buffer.count, index < segments.count {
            let room = buffer.count - filled
            switch segments[index] {
            case .bytes(let data):
                let count = min(room, data.count - Int(consumed))
                data.withUnsafeBytes { source in
                    if let from = source.baseAddress {
                        (base + filled).copyMemory(from: from + Int(consumed), byteCount: count)
                    }
                }
                filled += count
                consumed += Int64(count)
                if consumed == Int64(data.count) { advance() }
            case .file(let path, let offset, let length):
                guard consumed < length else {
                    advance()
                    continue
                }
                if descriptor < 0 {
                    descriptor = open(path, O_RDONLY | O_CLOEXEC)
                    guard descriptor >= 0 else {
                        return .failure(FileError(operation: .open, path: path, errno: errno))
                    }
                }
                let wanted = Int(min(Int64(room), length - consumed))
                let got = pread(descriptor, base + filled, wanted, off_t(offset + consumed))
                guard got >= 0 else { return .failure(FileError(operation: .read, path: path, errno: errno)) }
                guard got > 0 else {
                    return .failure(FileError(operation: .read, path: path, reason: "the file shrank while it was being sent"))
                }
                filled += got
                consumed += Int64(got)
                // A short read (rare for regular files) hands curl what there is rather than looping.
                if got < wanted { return .success(filled) }
            }
        }
        return .success(filled)
    }

    /// Starts the body again from its first byte (a redirect or an auth retry re-sends it).
    func rewind() {
        close()
        index = 0
        consumed = 0
    }

    func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }

    private func advance() {
        close()
        index += 1
        consumed = 0
    }
}
