#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CourierCore
import FoundationEssentials

/// Entries in a directory, one file each, shared safely by many processes: a file is written beside its place
/// and renamed into it (Core's `PrivateFile`: a reader sees the old entry or the new one, never half of one), a file that vanishes
/// under a reader is a miss, and a file that does not hold the key asked for (a hash collision, a foreign file)
/// is a miss too. Reading an entry touches its modification time; past ``maximumBytes`` the files least
/// recently touched are removed.
///
/// A file is `CCE2`, the metadata's length (4 bytes, big-endian), the metadata as JSON, then the body's bytes.
final class DiskCacheStore: CacheStore {
    let directory: String
    let maximumBytes: Int
    /// What this process believes the directory holds; the directory is counted again when it passes the limit.
    private let estimate = Locked(0)

    private struct Metadata: Codable {
        var key: String
        var status: Int
        var reasonPhrase: String
        var fields: [CacheEntry.Field]
        var vary: [String: String?]
        var requestTime: Date
        var responseTime: Date
    }

    /// `CCE2` since entries record the request's credentials (`CachePolicy.credentialFields`): a `CCE1` entry
    /// does not, and could have answered a request with other credentials, so it is a miss.
    private static let magic: [UInt8] = Array("CCE2".utf8)

    init(directory: String, maximumBytes: Int) throws(FileError) {
        self.directory = directory
        self.maximumBytes = max(0, maximumBytes)
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw FileError(operation: .create, path: directory, reason: "\(error)")
        }
        estimate.withLock { $0 = Self.files(in: directory).reduce(0) { $0 + $1.size } }
    }

    func entry(for key: String) -> CacheEntry? {
        let path = self.path(for: key)
        guard let data = FileManager.default.contents(atPath: path), let entry = Self.decode(data), entry.key == key else { return nil }
        // Touch it: the least recently used go first.
        _ = utimensat(AT_FDCWD, path, nil, 0)
        return entry
    }

    func store(_ entry: CacheEntry) {
        guard let data = Self.encode(entry), data.count <= maximumBytes else { return remove(entry.key) }
        // A store that fails (a full disk, a removed directory) leaves the entry uncached: the response still goes on.
        guard (try? PrivateFile.replace(path(for: entry.key), with: data)) != nil else { return }
        let total = estimate.withLock { total -> Int in
            total += data.count
            return total
        }
        if total > maximumBytes { evict() }
    }

    func remove(_ key: String) {
        unlink(path(for: key))
    }

    func removeAll() {
        for file in Self.files(in: directory) { unlink(file.path) }
        estimate.withLock { $0 = 0 }
    }

    var size: Int { Self.files(in: directory).reduce(0) { $0 + $1.size } }

    /// Removes the least recently touched files until the directory fits; files other processes removed meanwhile are skipped.
    private func evict() {
        var files = Self.files(in: directory).sorted { $0.modified < $1.modified }
        var total = files.reduce(0) { $0 + $1.size }
        while total > maximumBytes, !files.isEmpty {
            let oldest = files.removeFirst()
            if unlink(oldest.path) == 0 || errno == ENOENT { total -= oldest.size }
        }
        estimate.withLock { $0 = total }
    }

    /// The file of `key`: its 64-bit FNV-1a hash in hexadecimal (the file holds the key, so a collision is a miss).
    private func path(for key: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        return "\(directory)/\(String(repeating: "0", count: 16 - hex.count))\(hex).entry"
    }

    private static func files(in directory: String) -> [(path: String, size: Int, modified: Date)] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        return names.filter { $0.hasSuffix(".entry") }.compactMap { name in
            let path = directory + "/" + name
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return nil }
            let size = (attributes[.size] as? Int) ?? Int((attributes[.size] as? UInt64) ?? 0)
            return (path, size, (attributes[.modificationDate] as? Date) ?? .distantPast)
        }
    }

    private static func encode(_ entry: CacheEntry) -> Data? {
        let metadata = Metadata(
            key: entry.key, status: entry.status, reasonPhrase: entry.reasonPhrase, fields: entry.fields, vary: entry.vary,
            requestTime: entry.requestTime, responseTime: entry.responseTime
        )
        guard let json = try? JSONEncoder().encode(metadata), json.count < Int(UInt32.max) else { return nil }
        var data = Data(magic)
        let length = UInt32(json.count).bigEndian
        withUnsafeBytes(of: length) { data.append(contentsOf: $0) }
        data.append(json)
        data.append(entry.body)
        return data
    }

    /// The entry of a file, or `nil` for anything else (a foreign or truncated file).
    static func decode(_ data: Data) -> CacheEntry? {
        let bytes = [UInt8](data)
        guard bytes.count >= 8, Array(bytes[0..<4]) == magic else { return nil }
        let length = Int(bytes[4]) << 24 | Int(bytes[5]) << 16 | Int(bytes[6]) << 8 | Int(bytes[7])
        guard length <= bytes.count - 8,
              let metadata = try? JSONDecoder().decode(Metadata.self, from: Data(bytes[8..<(8 + length)])) else { return nil }
        return CacheEntry(
            key: metadata.key, status: metadata.status, reasonPhrase: metadata.reasonPhrase, fields: metadata.fields,
            body: Data(bytes[(8 + length)...]), vary: metadata.vary,
            requestTime: metadata.requestTime, responseTime: metadata.responseTime
        )
    }
}
