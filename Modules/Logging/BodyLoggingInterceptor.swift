import CourierCore
import HTTPTypes
import Logging

/// Writes the first bytes of each body on the wire at `trace` (``RequestLogging/maximumBodyBytes``).
///
/// A network interceptor: it sees every exchange, redirect hops and retries included. When the logger
/// is above `trace` it passes everything through untouched, so it costs a level check. At `trace` a
/// streamed body is read through a tee that keeps at most the bound and writes its line when the bound
/// is reached or the body ends: nothing is buffered beyond the bound, and the reader sets the pace.
struct BodyLoggingInterceptor: Interceptor {
    let logging: RequestLogging

    func intercept(_ request: HTTPRequest, body: Body?, context: RequestContext, next: InterceptorNext) async throws -> Response {
        guard logging.logger.logLevel <= .trace, logging.maximumBodyBytes > 0 else {
            return try await next(request, body: body, context: context)
        }
        let id = RequestID(context.task)
        let sentBody = body.map { logged($0, direction: "request", id: id) }
        var response = try await next(request, body: sentBody, context: context)
        response.body = logged(response.body, direction: "response", id: id)
        return response
    }

    private func logged(_ body: Body, direction: String, id: RequestID) -> Body {
        let sink = BodySample(logger: logging.logger, limit: logging.maximumBodyBytes, direction: direction, id: id)
        if let bytes = body.bufferedBytes {
            // In memory already: written now, and the body goes on as it was (with its fast paths).
            sink.take(ArraySlice(bytes))
            sink.finish()
            return body
        }
        return Body(TeeSequence(base: body, sink: sink), length: body.length,
                    iterationBehavior: body.iterationBehavior, maximumReadSize: body.maximumReadSize)
    }
}

/// The first bytes of one body, and the line they become.
final class BodySample: Sendable {
    private let logger: Logger
    private let limit: Int
    private let direction: String
    private let id: RequestID
    private let state = Locked<(bytes: [UInt8], total: Int64, written: Bool)>(([], 0, false))

    init(logger: Logger, limit: Int, direction: String, id: RequestID) {
        self.logger = logger
        self.limit = limit
        self.direction = direction
        self.id = id
    }

    func take(_ chunk: ArraySlice<UInt8>) {
        let full = state.withLock { state -> Bool in
            state.total += Int64(chunk.count)
            guard !state.written else { return false }
            state.bytes.append(contentsOf: chunk.prefix(limit - state.bytes.count))
            return state.bytes.count >= limit
        }
        if full { write(complete: false) }
    }

    func finish() { write(complete: true) }

    private func write(complete: Bool) {
        let taken = state.withLock { state -> (bytes: [UInt8], total: Int64)? in
            guard !state.written else { return nil }
            state.written = true
            return (state.bytes, state.total)
        }
        guard let taken else { return }
        let shown = Self.render(taken.bytes)
        let size = complete ? "\(taken.total) bytes" : "first \(taken.bytes.count) bytes"
        logger.trace(
            "\(direction) body, \(size): \(shown)",
            metadata: ["courier.request_id": "\(id)", "courier.body.direction": "\(direction)"],
            source: LoggingEventListener.source
        )
    }

    /// UTF-8 text as it is, with what ``LogText`` escapes escaped (one body stays one line); other bytes as hex.
    /// The bound may cut a character in two: an incomplete character at the end is left out and marked `…`.
    static func render(_ bytes: [UInt8]) -> String {
        if let text = String(validating: bytes, as: UTF8.self) {
            return "\"\(LogText.escaped(text))\""
        }
        let cut = incompleteTail(bytes)
        if cut > 0, let text = String(validating: bytes.dropLast(cut), as: UTF8.self) {
            return "\"\(LogText.escaped(text))\"…"
        }
        return "<binary> " + bytes.prefix(256).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 0x10 ? "0" + hex : hex
        }.joined()
    }

    /// How many bytes at the end start a UTF-8 character they do not finish (0 when none do).
    static func incompleteTail(_ bytes: [UInt8]) -> Int {
        var continuation = 0
        for byte in bytes.reversed().prefix(4) {
            if (0x80...0xBF).contains(byte) {
                continuation += 1
                continue
            }
            let length = switch byte {
            case 0xC2...0xDF: 2
            case 0xE0...0xEF: 3
            case 0xF0...0xF4: 4
            default: 0
            }
            return length > continuation + 1 ? continuation + 1 : 0
        }
        return 0
    }
}

/// A body read through to its reader while the sample takes what passes.
struct TeeSequence: AsyncSequence, Sendable {
    typealias Element = ArraySlice<UInt8>
    let base: Body
    let sink: BodySample

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Body.Iterator
        let sink: BodySample

        mutating func next() async throws -> ArraySlice<UInt8>? {
            guard let chunk = try await base.next() else {
                sink.finish()
                return nil
            }
            sink.take(chunk)
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), sink: sink)
    }
}
