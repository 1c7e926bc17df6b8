import CourierTesting

/// What one soak request does. Each kind's exercise says what it sends and what a right outcome is
/// (`SoakClient+Bodies.swift`, `SoakClient+Transfers.swift`, `SoakClient+Control.swift`).
public enum RequestKind: String, CaseIterable, Sendable, Comparable {
    /// `GET /json` from nginx over HTTP/1.1: 600 known bytes (1 in 10 on a session made for it).
    case json
    /// `GET /json` from nginx over TLS, HTTP/2.
    case jsonTLS = "json-tls"
    /// A gzip body through nginx, decoded, checked against the server's length and SHA-256.
    case gzip
    /// A chunked body straight from the compression server (chunks of 1 to 65,536 bytes), identity,
    /// gzip, br or zstd, decoded and checked.
    case chunked
    /// httpbin's `/redirect/N`, N from 1 to 3: N hops followed, then 200 from `/get`.
    case redirect
    /// A 4xx: httpbin's `/status/N` or a missing file on nginx; the status must come back as it is.
    case clientError = "4xx"
    /// A 5xx from httpbin's `/status/N`.
    case serverError = "5xx"
    /// 1 byte to 16 KiB from memory, to nginx's `/upload` or the upload sink (which returns its hash).
    case uploadSmall = "upload-small"
    /// `1m.bin` from its file to the upload sink, which must report its length and SHA-256.
    case uploadLarge = "upload-1m"
    /// `/files/1m.bin` downloaded to a file, checked against SHA256SUMS, then deleted.
    case download
    /// A slow body cancelled mid-transfer (three ways); it must end as cancelled.
    case cancel
    /// A transfer suspended, held, then resumed; it must complete byte-exact.
    case suspendResume = "suspend-resume"

    /// Its share of the mix, out of 100.
    public var weight: Int {
        switch self {
        case .json: 22
        case .jsonTLS: 8
        case .gzip: 10
        case .chunked: 8
        case .redirect: 8
        case .clientError: 6
        case .serverError: 4
        case .uploadSmall: 8
        case .uploadLarge: 4
        case .download: 6
        case .cancel: 8
        case .suspendResume: 8
        }
    }

    public static func < (lhs: RequestKind, rhs: RequestKind) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// Request `index` of a run: its kind and the generator its exercise draws its details from (sizes,
/// seeds, status codes, when to cancel). A function of the run's seed and the index alone, so any
/// request of any run can be replayed, whatever order the requests happened to finish in.
public struct RequestPlan: Sendable {
    public let index: Int
    public let kind: RequestKind
    /// Draw the request's details from this, in the exercise's order.
    public var generator: SplitMix64

    /// The plan of request `index` in a run seeded with `seed`.
    public init(index: Int, seed: UInt64) {
        self.index = index
        // A multiply by an odd constant spreads neighbouring indices over the generator's states.
        generator = SplitMix64(seed: seed ^ (UInt64(index) &* 0xD1B5_4A32_D192_ED03))
        var roll = Int(generator.next() % 100)
        var chosen = RequestKind.json
        for kind in RequestKind.allCases {
            if roll < kind.weight { chosen = kind; break }
            roll -= kind.weight
        }
        kind = chosen
    }

    /// A number in `range`, drawn from the plan's generator.
    public mutating func draw(_ range: ClosedRange<Int>) -> Int {
        Int.random(in: range, using: &generator)
    }

    /// One of `choices`, drawn from the plan's generator.
    public mutating func pick<T>(_ choices: [T]) -> T {
        choices[draw(0...(choices.count - 1))]
    }
}
