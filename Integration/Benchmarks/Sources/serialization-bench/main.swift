import BenchSupport
import CourierCore
import CourierRequestSerialization
import Foundation

// Query-string serialization: Courier's `QueryString.encode(tree)` against what a Foundation user
// writes for the same tree: walk it (sorting dictionary keys, bracketing names as AFNetworking
// does), collect `[URLQueryItem]`, set `URLComponents.queryItems`, read `percentEncodedQuery`.
// Both start from the same `Parameters` tree and produce the same name–value pairs (checked before
// timing); only the escaping differs (Foundation's query rules, not AFNetworking's).
//
// usage: serialization-bench [--users N] [--rounds N]
//        serialization-bench --only courier|foundation [--seconds S] [--users N]   (for a profiler)
// Prints one JSON line of figures on standard output and a description on standard error.

// MARK: - Arguments

var users = 200
var rounds = 31
var only: String?
var profileSeconds = 10.0
var arguments = Array(CommandLine.arguments.dropFirst())
while !arguments.isEmpty {
    let flag = arguments.removeFirst()
    guard let value = arguments.first else {
        FileHandle.standardError.write(Data("serialization-bench: \(flag) needs a value\n".utf8))
        exit(2)
    }
    arguments.removeFirst()
    switch flag {
    case "--users": users = Int(value) ?? users
    case "--rounds": rounds = max(3, Int(value) ?? rounds)
    case "--only": only = value
    case "--seconds": profileSeconds = Double(value) ?? profileSeconds
    default:
        FileHandle.standardError.write(Data("usage: serialization-bench [--users N] [--rounds N] [--only courier|foundation --seconds S]\n".utf8))
        exit(2)
    }
}

// MARK: - The tree

/// `count` users, each with 26 values: id, name (spaces and non-ASCII), email, active, score,
/// 5 tags (an array), an address (a dictionary of 4), 3 flags (a set), 2 phones (an array of
/// dictionaries of 2) and meta (a dictionary of 5); plus 4 top-level values.
func makeTree(users count: Int) -> Parameters {
    let first = ["José", "Zoë", "Åsa", "Ngozi", "李雷", "Ōtani", "Björn", "Amélie", "Søren", "Dmitrij", "Chloé", "Mārtiņš"]
    let last = ["García Márquez", "van der Berg", "Nguyễn Văn", "O'Neil", "Müller-Lüdenscheidt", "山田 太郎", "Ørsted", "d'Artagnan", "Kowalski"]
    let emoji = ["😀", "🚀", "👩🏽‍💻", "", "🇧🇷", "✓"]
    let cities = ["São Paulo", "Zürich", "Kraków", "Reykjavík", "東京", "New York", "Montréal"]
    let countries = ["BR", "CH", "PL", "IS", "JP", "US", "CA"]
    let flagNames = ["beta", "admin?", "50% off", "early/bird", "vip", "opt-in=yes", "a+b"]
    var tree: [String: Parameters] = [:]
    for i in 0..<count {
        let firstName = first[i % first.count], lastName = last[(i / 3) % last.count]
        let id = String(i)
        let padded = String(repeating: "0", count: max(0, 3 - id.count)) + id
        let user: Parameters = [
            "id": .int(10_000 + i),
            "name": .string("\(firstName) \(lastName) \(emoji[i % emoji.count])"),
            "email": .string("\(firstName.lowercased()).\(i)+news@example.com"),
            "active": .bool(i % 3 != 0),
            "score": .double(Double(i % 97) + 0.25),
            "tags": ["swift", "linux", "R&D", .string("team \(i % 7)"), "ünïcödé"],
            "address": [
                "street": .string("\(i) Rue de l'Église, Bât. B"),
                "city": .string(cities[i % cities.count]),
                "zip": .string("0\(1000 + i)"),
                "country": .string(countries[i % countries.count]),
            ],
            "flags": .set([
                .string(flagNames[i % flagNames.count]),
                .string(flagNames[(i + 2) % flagNames.count]),
                .string(flagNames[(i + 4) % flagNames.count]),
            ]),
            "phones": [
                ["kind": "home", "number": .string("+1 (555) 010-\(padded)")],
                ["kind": "work", "number": .string("+44 20 7946 \(padded)")],
            ],
            "meta": [
                "created": "2026-11-22T13:00:00Z",
                "updated": .string("2026-11-22T13:\(padded.suffix(2)):00+01:00"),
                "locale": "pt_BR",
                "timezone": "America/Sao_Paulo",
                "source": "import/csv?batch=7",
            ],
        ]
        tree["user-" + padded] = user
    }
    return ["users": .dictionary(tree), "page": 3, "per_page": .int(count), "q": "status:active & role=admin", "include_deleted": false]
}

// MARK: - The Foundation baseline

/// A scalar's text, by the same rules as Courier's query strings (`true` → `1`; the tree's doubles
/// print the same with Swift's `description` as with `%.16g`).
func text(of value: Parameters) -> String? {
    switch value {
    case .null: return nil
    case .bool(let value): return value ? "1" : "0"
    case .int(let value): return String(value)
    case .double(let value): return String(value)
    case .string(let value): return value
    case .data(let value): return String(decoding: value, as: UTF8.self)
    case .array, .set, .dictionary: return nil
    }
}

/// The walk a Foundation user writes: dictionary keys sorted, `name[key]` for a nested
/// dictionary, `name[]` for array elements, a set's scalars under `name`, sorted by text.
func appendItems(named name: String, for value: Parameters, to items: inout [URLQueryItem]) {
    switch value {
    case .dictionary(let values):
        for (key, nested) in values.sorted(by: { $0.key < $1.key }) {
            appendItems(named: name + "[" + key + "]", for: nested, to: &items)
        }
    case .array(let elements):
        let elementName = name + "[]"
        for element in elements { appendItems(named: elementName, for: element, to: &items) }
    case .set(let elements):
        for element in elements.sorted(by: { (text(of: $0) ?? "") < (text(of: $1) ?? "") }) {
            appendItems(named: name, for: element, to: &items)
        }
    case .null, .bool, .int, .double, .string, .data:
        items.append(URLQueryItem(name: name, value: text(of: value)))
    }
}

func foundationItems(_ tree: Parameters) -> [URLQueryItem] {
    guard case .dictionary(let top) = tree else { return [] }
    var items: [URLQueryItem] = []
    for (key, value) in top.sorted(by: { $0.key < $1.key }) {
        appendItems(named: key, for: value, to: &items)
    }
    return items
}

@inline(never)
func foundationQuery(_ tree: Parameters) -> String {
    var components = URLComponents()
    components.queryItems = foundationItems(tree)
    return components.percentEncodedQuery ?? ""
}

@inline(never)
func courierQuery(_ tree: Parameters) -> String {
    do {
        return try QueryString.encode(tree)
    } catch {
        fatalError("QueryString.encode failed: \(error)")
    }
}

// MARK: - Checks

/// The pairs of a query string, each name and value percent-decoded (no `+` → space).
func decodedPairs(_ query: String) -> [[String?]] {
    query.split(separator: "&", omittingEmptySubsequences: false).map { item in
        let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        return [String(parts[0]).removingPercentEncoding, parts.count > 1 ? String(parts[1]).removingPercentEncoding : nil]
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("serialization-bench: \(message)\n".utf8))
    exit(1)
}

let tree = makeTree(users: users)
let expected: [[String?]]
do {
    expected = try QueryString.pairs(from: tree).map { [$0.name, $0.value] }
} catch {
    fail("QueryString.pairs failed: \(error)")
}
let baselinePairs = foundationItems(tree).map { [$0.name, $0.value] }
guard baselinePairs == expected else {
    let index = zip(baselinePairs, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        ?? min(baselinePairs.count, expected.count)
    fail("the baseline's pairs differ from QueryString.pairs at \(index) (\(baselinePairs.count) vs \(expected.count) pairs)")
}
let courierOutput = courierQuery(tree)
let foundationOutput = foundationQuery(tree)
guard decodedPairs(courierOutput) == expected else { fail("Courier's query does not decode to the tree's pairs") }
// Foundation leaves `+` as it is, which a server that decodes forms reads as a space; decoding
// without that rule, as here, its query holds the same pairs.
let foundationRoundTrips = decodedPairs(foundationOutput) == expected

/// The printable ASCII characters that one side escapes and the other does not, in values.
func escapingDifferences() -> (courierOnly: String, foundationOnly: String) {
    var courierOnly = "", foundationOnly = ""
    for byte in UInt8(0x20)...UInt8(0x7E) {
        let character = String(UnicodeScalar(byte))
        let courier = courierQuery(["k": .string(character)]) != "k=" + character
        var components = URLComponents()
        components.queryItems = [URLQueryItem(name: "k", value: character)]
        let foundation = components.percentEncodedQuery != "k=" + character
        if courier && !foundation { courierOnly += character }
        if foundation && !courier { foundationOnly += character }
    }
    return (courierOnly, foundationOnly)
}

// MARK: - Profiling mode

if let only {
    let encode: (Parameters) -> String
    switch only {
    case "courier": encode = courierQuery
    case "foundation": encode = foundationQuery
    default: fail("--only takes courier or foundation")
    }
    let start = now()
    var calls = 0, checksum = 0
    while now() - start < profileSeconds {
        checksum &+= encode(tree).utf8.count
        calls += 1
    }
    let seconds = now() - start
    print(#"{"side":"\#(only)","calls":\#(calls),"us_per_call":\#(String(format: "%.1f", seconds / Double(calls) * 1e6)),"checksum":\#(checksum)}"#)
    exit(0)
}

// MARK: - Timing

/// Seconds per call over `batch` calls.
@inline(never)
func timeBatch(_ batch: Int, _ encode: (Parameters) -> String, _ tree: Parameters, checksum: inout Int) -> Double {
    let start = now()
    for _ in 0..<batch { checksum &+= encode(tree).utf8.count }
    return (now() - start) / Double(batch)
}

var checksum = 0
for _ in 0..<3 {
    checksum &+= courierQuery(tree).utf8.count
    checksum &+= foundationQuery(tree).utf8.count
}
// A batch of calls takes at least 40 ms, a round one batch of each side (their order alternating);
// rounds stop early past 15 s, so the whole run stays under 20 s.
let single = max(timeBatch(1, courierQuery, tree, checksum: &checksum), timeBatch(1, foundationQuery, tree, checksum: &checksum))
let batch = max(1, Int((0.04 / max(single, 1e-7)).rounded(.up)))
var courierTimes: [Double] = [], foundationTimes: [Double] = []
let timingStart = now()
for round in 0..<rounds {
    if round >= 5, now() - timingStart > 15 { break }
    if round % 2 == 0 {
        courierTimes.append(timeBatch(batch, courierQuery, tree, checksum: &checksum))
        foundationTimes.append(timeBatch(batch, foundationQuery, tree, checksum: &checksum))
    } else {
        foundationTimes.append(timeBatch(batch, foundationQuery, tree, checksum: &checksum))
        courierTimes.append(timeBatch(batch, courierQuery, tree, checksum: &checksum))
    }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

let courierMedian = median(courierTimes), foundationMedian = median(foundationTimes)
let differences = escapingDifferences()
var usage = rusage()
getrusage(RUSAGE_SELF.rawValue, &usage)

func jsonString(_ value: String) -> String {
    String(decoding: (try? JSONEncoder().encode(value)) ?? Data("\"\"".utf8), as: UTF8.self)
}

FileHandle.standardError.write(Data("""
    serialization-bench: \(expected.count) pairs from \(users) users; \(courierTimes.count) rounds of \(batch) calls per side
      Courier:    QueryString.encode(tree) -> \(courierOutput.utf8.count) bytes, median \(String(format: "%.1f", courierMedian * 1e6)) µs
      Foundation: walk tree (sorted keys, bracketed names) -> [URLQueryItem] -> URLComponents.queryItems -> percentEncodedQuery
                  -> \(foundationOutput.utf8.count) bytes, median \(String(format: "%.1f", foundationMedian * 1e6)) µs
      Courier / Foundation speed: \(String(format: "%.2f", foundationMedian / courierMedian))×
      escaped by Courier only: \(differences.courierOnly)   by Foundation only: \(differences.foundationOnly.isEmpty ? "none" : differences.foundationOnly)
      Foundation's query decodes to the same pairs: \(foundationRoundTrips)

    """.utf8))
print(
    #"{"client":"serialization-bench","workload":"query-string","pairs":\#(expected.count),"users":\#(users),"#
        + #""rounds":\#(courierTimes.count),"batch":\#(batch),"#
        + #""courier_us":\#(String(format: "%.2f", courierMedian * 1e6)),"foundation_us":\#(String(format: "%.2f", foundationMedian * 1e6)),"#
        + #""courier_min_us":\#(String(format: "%.2f", (courierTimes.min() ?? 0) * 1e6)),"foundation_min_us":\#(String(format: "%.2f", (foundationTimes.min() ?? 0) * 1e6)),"#
        + #""courier_bytes":\#(courierOutput.utf8.count),"foundation_bytes":\#(foundationOutput.utf8.count),"#
        + #""foundation_round_trips":\#(foundationRoundTrips),"#
        + #""escaped_by_courier_only":\#(jsonString(differences.courierOnly)),"escaped_by_foundation_only":\#(jsonString(differences.foundationOnly)),"#
        + #""max_rss_kib":\#(usage.ru_maxrss),"checksum":\#(checksum)}"#
)
