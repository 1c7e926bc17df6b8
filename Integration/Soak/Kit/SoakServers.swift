import Foundation

/// The servers the soak talks to, from the variables `Scripts/servers.sh env` exports, and the known
/// bytes it checks bodies against.
public struct SoakServers: Sendable {
    public let nginx: String
    public let tls: String
    public let httpbin: String
    public let compression: String
    public let sink: String
    public let caFile: String
    public let filesDirectory: String
    /// nginx's `/json`: the bytes of `small.json`.
    public let smallJSON: Data
    /// `1m.bin`, uploaded from its file.
    public let oneMiBPath: String
    /// `1m.bin`'s SHA-256, from SHA256SUMS.
    public let oneMiBSHA256: String

    /// Reads the environment and the files directory.
    /// - Throws: ``SetupError`` naming what is missing.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws(SetupError) -> SoakServers {
        func value(_ name: String) throws(SetupError) -> String {
            guard let value = environment[name], !value.isEmpty else {
                throw SetupError(message: "\(name) is not set: run eval \"$(Scripts/servers.sh env)\" first, or use Scripts/soak.sh")
            }
            return value
        }
        let files = try value("COURIER_FILES_DIR")
        guard let smallJSON = FileManager.default.contents(atPath: files + "/small.json"),
              let sums = try? String(contentsOfFile: files + "/SHA256SUMS", encoding: .utf8),
              let line = sums.split(separator: "\n").first(where: { $0.hasSuffix(" 1m.bin") }),
              let hash = line.split(separator: " ").first
        else {
            throw SetupError(message: "\(files) lacks small.json or SHA256SUMS: run Scripts/servers.sh start")
        }
        return SoakServers(
            nginx: try value("COURIER_NGINX_URL"), tls: try value("COURIER_TLS_URL"),
            httpbin: try value("COURIER_HTTPBIN_URL"), compression: try value("COURIER_COMPRESSION_URL"),
            sink: try value("COURIER_SINK_URL"), caFile: try value("COURIER_CA_FILE"), filesDirectory: files,
            smallJSON: smallJSON, oneMiBPath: files + "/1m.bin", oneMiBSHA256: String(hash)
        )
    }
}

/// The soak cannot start: a server variable or a fixture is missing.
public struct SetupError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
