import CourierCore
import FoundationEssentials

/// The boundary AFNetworking's layout examples use.
let fixedBoundary = "Boundary+0123456789ABCDEF"

/// Every byte of `body`, read the way a transport without the segment fast path reads it.
func bytes(of body: Body) async throws -> Data {
    try await body.collect(upTo: 64 << 20)
}

/// A fresh temporary file holding `data`; removed by the caller.
func temporaryFile(_ data: Data, name: String = "part.bin") throws -> String {
    let directory = FileManager.default.temporaryDirectory.appending(path: "courier-multipart-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let url = directory.appending(path: name)
    try data.write(to: url)
    return url.path(percentEncoded: false)
}

/// `count` bytes of a repeating, position-dependent pattern (so a shifted byte shows).
func patternData(_ count: Int) -> Data {
    Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) })
}
