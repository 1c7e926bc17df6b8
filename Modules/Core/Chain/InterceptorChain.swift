import HTTPTypes

/// The session's stages in order, ending in the transport. Built once per session and immutable,
/// so running it allocates nothing per call beyond what the stages do.
final class InterceptorChain: Sendable {
    let stages: [any Interceptor]
    let transport: any Transport

    /// Application interceptors, then the retry stage (when a retrier is set), the redirect
    /// stage, network interceptors and the transport.
    init(
        application: [any Interceptor],
        retrier: (any Retrier)?,
        redirectPolicy: RedirectPolicy,
        network: [any Interceptor],
        transport: any Transport
    ) {
        var stages = application
        if let retrier { stages.append(RetryStage(retrier: retrier)) }
        stages.append(RedirectStage(policy: redirectPolicy))
        stages.append(contentsOf: network)
        self.stages = stages
        self.transport = transport
    }

    /// Runs the chain from its first stage.
    func run(_ request: HTTPRequest, body: Body?, context: RequestContext) async throws -> Response {
        try await run(from: 0, request, body: body, context: context)
    }

    /// Runs stage `index`, or the transport past the last stage. Errors leave each stage as a
    /// ``CourierError`` naming it.
    func run(from index: Int, _ request: HTTPRequest, body: Body?, context: RequestContext) async throws -> Response {
        if index < stages.count {
            let stage = stages[index]
            do {
                return try await stage.intercept(
                    request, body: body, context: context, next: InterceptorNext(chain: self, index: index + 1)
                )
            } catch {
                throw CourierError.wrapping(error, stage: Self.stageName(of: stage), request: request)
            }
        }
        try Task.checkCancellation()
        if context.control.isCancelled { throw CancellationError() }
        do {
            return try await transport.send(request, body: body, context: context)
        } catch {
            throw CourierError.wrapping(error, stage: .transport, request: request)
        }
    }

    private static func stageName(of stage: any Interceptor) -> CourierError.Stage {
        switch stage {
        case is RetryStage: return .retry
        case is RedirectStage: return .redirect
        default: return .interceptor(type(of: stage))
        }
    }
}
