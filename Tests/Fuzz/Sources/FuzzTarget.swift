/// One fuzz target: a parser of untrusted bytes and the properties it must keep for every input.
///
/// `run` must never crash, hang or leak for any input; a broken property is reported with `precondition` or
/// `fatalError` (libFuzzer then saves the input as a crash). An input the parser rejects with its typed error
/// is a success.
protocol FuzzTarget: Sendable {
    /// The name Scripts/fuzz.sh and COURIER_FUZZ_TARGET use; also the folder of its seed corpus
    /// (`Tests/Fuzz/Corpus/<name>/`).
    static var name: String { get }
    /// Runs the parser on `input` and checks its properties.
    static func run(_ input: FuzzInput)
}

/// Every target, and the one this process runs.
enum FuzzTargets {
    /// Every target, in the order Scripts/fuzz.sh runs them.
    static let all: [any FuzzTarget.Type] = [
        JSONFuzz.self,
        ResponseHeadFuzz.self,
        CLIItemFuzz.self,
        PercentEscapingFuzz.self,
        QueryStringFuzz.self,
        ContentDispositionFuzz.self,
        ContentRangeFuzz.self,
        ImageHeaderFuzz.self,
        NetlinkFuzz.self,
        CertificatesFuzz.self,
        ContentDecodingFuzz.self,
        XMLFuzz.self,
        MultipartFuzz.self,
        StreamsFuzz.self,
        CookiesFuzz.self,
        CacheFuzz.self,
        LogRedactionFuzz.self,
        PropertyListFuzz.self,
    ]

    /// The target named `name`.
    static func named(_ name: String) -> (any FuzzTarget.Type)? {
        all.first { $0.name == name }
    }

    /// Set once by main.swift before libFuzzer starts; libFuzzer calls back on the main thread only.
    nonisolated(unsafe) static var selected: (any FuzzTarget.Type)?
}
