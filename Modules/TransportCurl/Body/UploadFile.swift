import CourierCore
#if canImport(Glibc)
import Glibc
#endif

/// A file upload read with `pread` straight into curl's send buffer, on the curl thread: the
/// fastest path for `Body(contentsOfFileAt:)` (page-cache reads are short, like curl's own
/// `FILE *` uploads). Loop thread only.
final class UploadFile {
    let path: String
    let length: Int64
    private var descriptor: Int32 = -1
    private var offset: Int64 = 0

    init(path: String, length: Int64) {
        self.path = path
        self.length = length
    }

    deinit { close() }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, FileError> {
        if descriptor < 0 {
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                return .failure(FileError(operation: .open, path: path, errno: errno))
            }
        }
        let wanted = Int(min(Int64(buffer.count), length - offset))
        guard wanted > 0, let base = buffer.baseAddress else { return .success(0) }
        let got = pread(descriptor, base, wanted, off_t(offset))
        guard got >= 0 else { return .failure(FileError(operation: .read, path: path, errno: errno)) }
        guard got > 0 else {
            return .failure(FileError(operation: .read, path: path, reason: "the file shrank while it was being sent"))
        }
        offset += Int64(got)
        return .success(got)
    }

    func rewind() { offset = 0 }

    func close() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }
}
