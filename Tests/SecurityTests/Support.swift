import CourierCore
@testable import CourierSecurity
import Foundation

/// The committed fixtures (Fixtures/README.md): behaviour-spec §4's R, I, L, R2, I2, L2, SS-ND, SS-CN,
/// SS-SAN and LX, in DER.
enum Fixture {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// The one certificate of `name.pem`, in DER.
    static func der(_ name: String) -> [UInt8] {
        do {
            guard let first = try Certificate.certificates(contentsOfFile: path("\(name).pem")).first else { return [] }
            return first.derBytes
        } catch {
            return []
        }
    }

    static func certificate(_ name: String) -> Certificate { Certificate(derBytes: der(name)) }

    /// Runs `body` with a path that reads fixture `name` from a pipe, as `<(cat name)` gives a command (the
    /// fixtures fit in a pipe's buffer, so it is written whole before `body` runs).
    static func withPipe<T>(of name: String, _ body: (String) throws -> T) throws -> T {
        try withPipe(bytes: try [UInt8](Data(contentsOf: directory.appendingPathComponent(name))), body)
    }

    /// Runs `body` with a path that reads `bytes` (at most a pipe's buffer) from a pipe.
    static func withPipe<T>(bytes: [UInt8], _ body: (String) throws -> T) throws -> T {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw CocoaError(.fileReadUnknown) }
        defer { close(ends[0]) }
        let written = bytes.withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) }
        close(ends[1])
        guard written == bytes.count else { throw CocoaError(.fileReadUnknown) }
        return try body("/proc/self/fd/\(ends[0])")
    }

    static var R: [UInt8] { der("root") }
    static var I: [UInt8] { der("intermediate") }
    static var L: [UInt8] { der("leaf") }
    static var R2: [UInt8] { der("root2") }
    static var I2: [UInt8] { der("intermediate2") }
    static var L2: [UInt8] { der("leaf2") }
    static var ssND: [UInt8] { der("ss-nd") }
    static var ssCN: [UInt8] { der("ss-cn") }
    static var ssSAN: [UInt8] { der("ss-san") }
    static var LX: [UInt8] { der("expired") }

    /// The chain L-I-R, and the others of the checklist.
    static var chainLIR: [[UInt8]] { [L, I, R] }
    static var chainL2I2R2: [[UInt8]] { [L2, I2, R2] }
    static var chainLXIR: [[UInt8]] { [LX, I, R] }

    /// "System trust" for the tests: the anchor set {R} (behaviour-spec §4, [L]).
    static var anchorsR: TrustAnchors { .certificates([certificate("root")]) }
}

extension SecurityPolicy {
    /// A policy whose system trust is {R}.
    static func testing(
        _ mode: PinningMode = .none,
        pins: [[UInt8]] = [],
        allowInvalid: Bool = false,
        validatesDomainName: Bool = true
    ) -> SecurityPolicy {
        SecurityPolicy(
            pinningMode: mode,
            pinnedCertificates: Set(pins.map(Certificate.init(derBytes:))),
            allowInvalidCertificates: allowInvalid,
            validatesDomainName: validatesDomainName,
            trustAnchors: Fixture.anchorsR
        )
    }
}

/// Runs `openssl` with `arguments`, feeding `input`; its standard output.
func openssl(_ arguments: [String], input: Data? = nil) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
    process.arguments = arguments
    let output = Pipe()
    let inputPipe = Pipe()
    process.standardOutput = output
    process.standardInput = inputPipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    if let input { inputPipe.fileHandleForWriting.write(input) }
    try inputPipe.fileHandleForWriting.close()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return data
}
