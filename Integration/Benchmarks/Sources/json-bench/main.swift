// json-bench: Courier's JSONResponseSerializer against JSONSerialization and JSONDecoder called
// directly on the same bytes, for a generated JSON body of SIZE megabytes (default 50).
//
//   json-bench [SIZE_MB] [ROUNDS]
//
// Prints one JSON line per parser: the median wall time of ROUNDS parses (default 3), MB/s and the
// ratio of the baseline's time to Courier's (higher is better for Courier; ≥ 0.95 is the target).
// DecodableResponseSerializer is compared with JSONDecoder decoding the same typed model.
// Courier parses the DataResponse's own buffer (no copy of the body); the baselines get the same
// `Data`.
import CourierCore
import CourierResponseSerialization
import Foundation
import HTTPTypes

/// A generic JSON tree for JSONDecoder: what a Swift user writes to decode "any JSON".
enum AnyJSON: Decodable {
    case null, bool(Bool), number(Double), string(String), array([AnyJSON]), object([String: AnyJSON])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([AnyJSON].self) { self = .array(value) }
        else { self = .object(try container.decode([String: AnyJSON].self)) }
    }
}

/// The typed model of the generated records: what most apps decode into.
struct Record: Decodable, Sendable {
    struct Address: Decodable, Sendable { var street: String; var city: String; var zip: String; var geo: [Double] }
    var id: Int
    var name: String
    var email: String
    var active: Bool
    var score: Double
    var tags: [String]
    var address: Address
    var note: String?
}

/// A deterministic document of about `bytes` bytes: an array of user-like records with strings
/// (some escaped, some non-ASCII), integers, doubles, booleans, nulls and nesting.
func makeDocument(bytes: Int) -> Data {
    var text = "["
    text.reserveCapacity(bytes + 512)
    var id = 0
    while text.utf8.count < bytes {
        if id > 0 { text += "," }
        let note = id % 3 == 0 ? "null" : "\"line \\\"\(id)\\\"\\nnext — ünïcödé \\u00e9\""
        text += """
        {"id":\(id),"name":"User \(id) Smith","email":"user\(id)@example.com","active":\(id % 2 == 0),\
        "score":\(Double(id) * 1.25 + 0.5),"tags":["swift","http","t\(id % 17)"],\
        "address":{"street":"\(id) Main Street","city":"Springfield","zip":"\(10000 + id % 89999)","geo":[\(Double(id % 180) - 90.5),\(Double(id % 360) - 180.25)]},\
        "note":\(note)}
        """
        id += 1
    }
    text += "]"
    return Data(text.utf8)
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

func time(_ rounds: Int, _ body: () throws -> Void) rethrows -> Double {
    var samples: [Double] = []
    for _ in 0..<rounds {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    return median(samples)
}

let arguments = CommandLine.arguments
let megabytes = arguments.count > 1 ? Int(arguments[1]) ?? 50 : 50
let rounds = arguments.count > 2 ? Int(arguments[2]) ?? 3 : 3
let data = makeDocument(bytes: megabytes * 1_000_000)
let response = DataResponse(
    request: HTTPRequest(method: .get, scheme: "http", authority: "bench", path: "/data.json"),
    head: HTTPResponse(status: .ok, headerFields: [.contentType: "application/json"]),
    data: data
)
let serializer = JSONResponseSerializer(maximumBodySize: .max)

// Warm up each once (page in the buffer, load code), then measure.
_ = try serializer.serialize(response)
_ = try JSONSerialization.jsonObject(with: data)

let courier = try time(rounds) { _ = try serializer.serialize(response) }
let foundation = try time(rounds) { _ = try JSONSerialization.jsonObject(with: data) }
let decoderAny = try time(rounds) { _ = try JSONDecoder().decode(AnyJSON.self, from: data) }
let decoderTyped = try time(rounds) { _ = try JSONDecoder().decode([Record].self, from: data) }
let decodable = DecodableResponseSerializer<[Record]>(maximumBodySize: .max)
let courierTyped = try time(rounds) { _ = try decodable.serialize(response) }

let size = Double(data.count) / 1e6
for (name, seconds, reference) in [
    ("courier JSONResponseSerializer", courier, courier), ("JSONSerialization.jsonObject", foundation, courier),
    ("JSONDecoder → generic enum", decoderAny, courier), ("JSONDecoder → typed structs", decoderTyped, courier),
    ("courier DecodableResponseSerializer → typed structs", courierTyped, courierTyped),
    ("JSONDecoder → typed structs (vs Decodable serializer)", decoderTyped, courierTyped),
] {
    let ratio = seconds / reference
    print(#"{"workload":"json-parse","parser":"\#(name)","megabytes":\#(String(format: "%.1f", size)),"seconds":\#(String(format: "%.4f", seconds)),"mb_per_s":\#(String(format: "%.1f", size / seconds)),"baseline_over_courier":\#(String(format: "%.2f", ratio))}"#)
}
