import CourierCore
import HTTPTypes

/// The exit codes of `courier`, as ../shared/CLI.md lists them.
///
/// | code | when |
/// |---|---|
/// | 0 | the final response is 2xx |
/// | 1 | anything else: bad arguments, unreadable file, connection refused, … |
/// | 2 | a timeout |
/// | 3 / 4 / 5 | the final response is 3xx / 4xx / 5xx |
/// | 6 | more redirects than `--max-redirects` |
/// | 7 | TLS or trust failure |
enum ExitStatus {
    static let success: Int32 = 0
    static let failure: Int32 = 1
    static let timeout: Int32 = 2
    static let tooManyRedirects: Int32 = 6
    static let tlsFailure: Int32 = 7

    /// The exit code for a final response: 0 for 2xx, 3, 4 or 5 for the other classes, 1 for
    /// anything else (1xx, or a code outside 100–599).
    static func code(for status: HTTPResponse.Status) -> Int32 {
        switch status.code {
        case 200..<300: return success
        case 300..<400: return 3
        case 400..<500: return 4
        case 500..<600: return 5
        default: return failure
        }
    }

    /// The exit code for a failed exchange.
    static func code(for error: CourierError) -> Int32 {
        if error.isTimeout { return timeout }
        if let redirect = error.underlyingError as? RedirectError, redirect.reason == .tooManyRedirects {
            return tooManyRedirects
        }
        if let transport = error.underlyingError as? TransportError, transport.code == .tlsFailure {
            return tlsFailure
        }
        if error.underlyingError is TrustError { return tlsFailure }
        return failure
    }

    /// The exit code for any error `courier` can end with.
    static func code(for error: any Error) -> Int32 {
        switch error {
        case let error as CLIError: return error.exitCode
        case let error as CourierError: return code(for: error)
        default: return failure
        }
    }
}
