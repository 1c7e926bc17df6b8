import FoundationEssentials

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What the default headers are made of, read once per process: the environment, the kernel and
/// the distribution do not change while a program runs, and reading files per serializer would.
struct SystemFacts: Sendable {
    let executable: String
    let kernelRelease: String?
    let distribution: String?
    let languages: [String]

    static let current = SystemFacts(
        executable: executableName(),
        kernelRelease: kernelRelease(),
        distribution: distribution(),
        languages: AcceptLanguage.preferredLanguages(environment: ProcessInfo.processInfo.environment)
    )

    /// The last path component of `argv[0]`, else of `/proc/self/exe`'s target.
    private static func executableName() -> String {
        if let first = CommandLine.arguments.first, let name = lastComponent(first) {
            return name
        }
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return "" }
        let target = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return lastComponent(target) ?? ""
    }

    private static func lastComponent(_ path: String) -> String? {
        let name = path.split(separator: "/").last.map(String.init) ?? ""
        return name.isEmpty ? nil : name
    }

    /// `uname -r`, e.g. `6.1.0-18-amd64`.
    private static func kernelRelease() -> String? {
        var names = utsname()
        guard uname(&names) == 0 else { return nil }
        let release = withUnsafeBytes(of: &names.release) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
        return release.isEmpty ? nil : release
    }

    /// `PRETTY_NAME` of the first os-release file that exists.
    private static func distribution() -> String? {
        for path in ["/etc/os-release", "/usr/lib/os-release"] {
            if let data = try? Data(contentsOf: URL(filePath: path)) {
                return UserAgent.distribution(fromOSRelease: String(decoding: data, as: UTF8.self))
            }
        }
        return nil
    }
}
