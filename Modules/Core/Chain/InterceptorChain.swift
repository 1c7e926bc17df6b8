import HTTPTypes

/// The session's stages in order, ending in the transport. Built once per session and immutable,
/// so running it allocates nothing per call beyond what the stages do.
final class InterceptorChain: Sendable {
    /// A stage, with Courier's own redirect stage told apart: it is called directly rather than through
    /// the `Interceptor` protocol, whose requirement runs on the generic executor and so costs every call
    /// two executor switches in the concurrency runtime (one in, one back).
    enum Stage: Sendable {
        case redirect(RedirectStage)
        case other(any Interceptor)
    }

    let stages: [Stage]
    let transport: any Transport
    /// The transport again when it can run on its caller's executor (CourierCurl's does), for the same reason.
    private let inlineTransport: (any CallerExecutorTransport)?

    /// Application interceptors, then the retry stage (when a retrier is set), the redirect
    /// stage, network interceptors and the transport.
    init(
        application: [any Interceptor],
        retrier: (any Retrier)?,
        redirectPolicy: RedirectPolicy,
        network: [any Interceptor],
        transport: any Transport
    ) {
        var stages = application.map(Stage.other)
        if let retrier { stages.append(.other(RetryStage(retrier: retrier))) }
        stages.append(.redirect(RedirectStage(policy: redirectPolicy)))
        stages.append(contentsOf: network.map(Stage.other))
        self.stages = stages
        self.transport = transport
        self.inlineTransport = transport as? any CallerExecutorTransport
    }

    /// Runs the chain from its first stage.
    nonisolated(nonsending) func run(_ request: HTTPRequest, body: Body?, context: RequestContext) async throws -> Response {
        try await run(from: 0, request, body: body, context: context)
    }

    /// Runs the stages from `index` on, then the transport; every failure becomes a `CourierError`
    /// naming the stage it came from. Each step is a function of its own: an async function's frame holds
    /// room for every value of every branch, and is allocated from the task on every call.
    nonisolated(nonsending) func run(from index: Int, _ request: HTTPRequest, body: Body?, context: RequestContext) async throws -> Response {
        guard index < stages.count else { return try await send(request, body: body, context: context) }
        switch stages[index] {
        case .redirect(let stage): return try await run(stage, index: index, request, body: body, context: context)
        case .other(let stage): return try await run(stage, index: index, request, body: body, context: context)
        }
    }

    @inline(never)
    nonisolated(nonsending) private func run(
        _ stage: RedirectStage, index: Int, _ request: HTTPRequest, body: Body?, context: RequestContext
    ) async throws -> Response {
        do {
            return try await stage.run(request, body: body, context: context, next: InterceptorNext(chain: self, index: index + 1))
        } catch {
            throw CourierError.wrapping(error, stage: .redirect, request: request)
        }
    }

    @inline(never)
    nonisolated(nonsending) private func run(
        _ stage: any Interceptor, index: Int, _ request: HTTPRequest, body: Body?, context: RequestContext
    ) async throws -> Response {
        do {
            return try await stage.intercept(request, body: body, context: context, next: InterceptorNext(chain: self, index: index + 1))
        } catch {
            throw CourierError.wrapping(error, stage: Self.stageName(of: stage), request: request)
        }
    }

    @inline(never)
    nonisolated(nonsending) private func send(_ request: HTTPRequest, body: Body?, context: RequestContext) async throws -> Response {
        try Task.checkCancellation()
        if context.control.isCancelled { throw CancellationError() }
        do {
            if let inlineTransport {
                return try await inlineTransport.sendOnCallerExecutor(request, body: body, context: context)
            }
            return try await transport.send(request, body: body, context: context)
        } catch {
            throw CourierError.wrapping(error, stage: .transport, request: request)
        }
    }

    private static func stageName(of stage: any Interceptor) -> CourierError.Stage {
        switch stage {
        case is RetryStage: return .retry
        default: return .interceptor(type(of: stage))
        }
    }
}

/// A transport of this package whose `send` may run on its caller's executor: the chain calls it through
/// this requirement, which does not switch executors, instead of `Transport.send`, which does.
/// `sendOnCallerExecutor` must behave exactly as `send`.
package protocol CallerExecutorTransport: Transport {
    nonisolated(nonsending) func sendOnCallerExecutor(_ request: HTTPRequest, body: Body?, context: RequestContext) async throws -> Response
}
