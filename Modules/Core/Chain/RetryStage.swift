import HTTPTypes

/// The chain's retry slot: asks the session's ``Retrier`` after every try and replays the
/// request when told to. A body that can be read only once is never replayed: the stage keeps
/// the result it has.
struct RetryStage: Interceptor {
    let retrier: any Retrier
    /// Bytes of a discarded response's body read so the connection can be reused.
    static let drainLimit = 64 * 1024

    func intercept(
        _ request: HTTPRequest,
        body: Body?,
        context: RequestContext,
        next: InterceptorNext
    ) async throws -> Response {
        guard context.options.retries else { return try await next(request, body: body, context: context) }
        var number = 0
        while true {
            number += 1
            let outcome: Result<Response, CourierError>
            do {
                outcome = .success(try await next(request, body: body, context: context))
            } catch {
                let wrapped = CourierError.wrapping(error, stage: .transport, request: request)
                if wrapped.isCancellation || context.control.isCancelled { throw wrapped }
                outcome = .failure(wrapped)
            }
            let attempt: RetryAttempt
            switch outcome {
            case .success(let response):
                attempt = RetryAttempt(request: request, number: number, response: response.head, error: nil)
            case .failure(let error):
                attempt = RetryAttempt(request: request, number: number, response: error.response, error: error)
            }
            let decision = await retrier.decision(for: attempt)
            guard case .retry(let asked) = decision, body?.iterationBehavior != .single else {
                return try outcome.get()
            }
            // Any retrier's delay (a server's `Retry-After` under a generous cap, a policy of one's own) waits a day at
            // most, as `RetryPolicy`'s backoff does; a longer one trapped where the sleep converts it, and is a hang.
            let delay = min(max(asked, .zero), .seconds(RetryPolicy.maximumBackoffSeconds))
            // A retry that would start after the call's deadline could only time out: keep this outcome.
            if let deadline = context.deadline, ContinuousClock.now + delay >= deadline { return try outcome.get() }
            if case .success(let response) = outcome {
                await response.body.drain(upTo: Self.drainLimit)
            }
            context.retrying(attempt: number + 1, delay: delay)
            try await context.control.sleep(for: delay)
        }
    }
}
