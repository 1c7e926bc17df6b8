import Foundation

/// What one soak run does, from the command line or, for what it does not name, the environment.
///
/// ```
/// courier-soak [--requests N] [--concurrency C] [--seed S] [--warm-up-fraction F] [--warm-up-seconds W]
///              [--time-limit SECONDS] [--samples FILE] [--no-flatness]
/// ```
/// Environment: `COURIER_SOAK_REQUESTS`, `COURIER_SOAK_CONCURRENCY`, `COURIER_SOAK_SEED`,
/// `COURIER_SOAK_WARM_UP_FRACTION`, `COURIER_SOAK_WARM_UP_SECONDS`, `COURIER_SOAK_TIME_LIMIT`,
/// `COURIER_SOAK_SAMPLES`, `COURIER_SOAK_NO_FLATNESS=1`.
public struct SoakOptions: Sendable, Equatable {
    /// Requests in all.
    public var requests = 100_000
    /// Requests in flight at once.
    public var concurrency = 64
    /// Seeds the mix: request `i` of a run with seed `s` is the same request on every machine.
    public var seed: UInt64 = 12
    /// Warm-up lasts until this fraction of the requests has completed…
    public var warmUpFraction = 0.1
    /// …and at least this many seconds have passed, whichever comes later.
    public var warmUpSeconds = 10.0
    /// The whole run stops after this many seconds (requests still in flight are cancelled) and fails.
    public var timeLimit = 1_800.0
    /// Where every sample goes as TSV, when set.
    public var samplesPath: String?
    /// Judge outcomes only: under a sanitizer, shadow memory and the allocator's quarantine make the
    /// resident size say nothing about Courier.
    public var judgesFlatness = true

    /// The defaults.
    public init() {}

    /// Options from `arguments` (without the program name), falling back on `environment`.
    /// - Throws: ``UsageError`` naming the bad argument.
    public static func parse(
        _ arguments: [String],
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(UsageError) -> SoakOptions {
        var options = SoakOptions()
        // The environment first, so the command line overrides it.
        var pairs: [(String, String)] = []
        let fromEnvironment: [(String, String)] = [
            ("COURIER_SOAK_REQUESTS", "--requests"), ("COURIER_SOAK_CONCURRENCY", "--concurrency"),
            ("COURIER_SOAK_SEED", "--seed"), ("COURIER_SOAK_WARM_UP_FRACTION", "--warm-up-fraction"),
            ("COURIER_SOAK_WARM_UP_SECONDS", "--warm-up-seconds"), ("COURIER_SOAK_TIME_LIMIT", "--time-limit"),
            ("COURIER_SOAK_SAMPLES", "--samples"),
        ]
        for (variable, flag) in fromEnvironment {
            if let value = environment[variable], !value.isEmpty { pairs.append((flag, value)) }
        }
        if environment["COURIER_SOAK_NO_FLATNESS"] == "1" { options.judgesFlatness = false }
        var index = 0
        while index < arguments.count {
            let flag = arguments[index]
            if flag == "--no-flatness" {
                options.judgesFlatness = false
                index += 1
                continue
            }
            if flag == "--help" || flag == "-h" { throw UsageError(message: nil) }
            guard index + 1 < arguments.count else { throw UsageError(message: "\(flag) needs a value") }
            pairs.append((flag, arguments[index + 1]))
            index += 2
        }
        for (flag, value) in pairs { try options.apply(flag, value) }
        return options
    }

    private mutating func apply(_ flag: String, _ value: String) throws(UsageError) {
        func number<T: LosslessStringConvertible & Comparable>(_ type: T.Type, atLeast minimum: T) throws(UsageError) -> T {
            guard let parsed = T(value), parsed >= minimum else {
                throw UsageError(message: "\(flag) wants a number of at least \(minimum), not '\(value)'")
            }
            return parsed
        }
        switch flag {
        case "--requests": requests = try number(Int.self, atLeast: 1)
        case "--concurrency": concurrency = try number(Int.self, atLeast: 1)
        case "--seed": seed = try number(UInt64.self, atLeast: 0)
        case "--warm-up-fraction":
            warmUpFraction = try number(Double.self, atLeast: 0)
            guard warmUpFraction < 1 else { throw UsageError(message: "--warm-up-fraction must be below 1") }
        case "--warm-up-seconds": warmUpSeconds = try number(Double.self, atLeast: 0)
        case "--time-limit": timeLimit = try number(Double.self, atLeast: 1)
        case "--samples": samplesPath = value
        default: throw UsageError(message: "unknown option \(flag)")
        }
    }

    /// What the program prints for `--help` or a bad argument.
    public static let usage = """
        usage: courier-soak [--requests N] [--concurrency C] [--seed S] [--warm-up-fraction F] [--warm-up-seconds W]
                            [--time-limit SECONDS] [--samples FILE.tsv] [--no-flatness]
        Runs N requests (100000) with C in flight (64) against the servers of Scripts/servers.sh (eval "$(Scripts/servers.sh env)"
        first), checks every outcome, samples RSS, descriptors and threads every second, and judges them flat after warm-up
        (F of the requests, 0.1, and W seconds, 10, whichever ends later). Stops after SECONDS (1800) in any case.
        Exit status: 0 all right; 1 a wrong outcome or the time limit; 2 bad usage; 3 not flat (or too short to judge).
        """
}

/// A bad command line; `message` is nil for `--help`.
public struct UsageError: Error {
    public var message: String?
}
