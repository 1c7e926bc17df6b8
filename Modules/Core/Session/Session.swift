import Dispatch
import FoundationEssentials
import HTTPTypes
import Synchronization

/// Runs requests through an interceptor chain to a transport: AFNetworking's
/// `AFURLSessionManager` and `AFHTTPSessionManager` in one type.
///
/// ```swift
/// let session = Session(
///     configuration: SessionConfiguration(baseURL: URL(string: "http://127.0.0.1:8080/v1")),
///     transport: EchoTransport()   // any Transport, e.g. the one in Transport's documentation
/// )
/// let response = try await session.get("users").response   // GET http://127.0.0.1:8080/v1/users
/// print(response.status, response.text)
/// ```
/// Structured calls (``send(_:body:)``, ``data(for:body:)``) run in the caller's Swift task and
/// are cancelled with it. Task handles (``dataTask(with:body:)``, ``uploadTask(with:from:)``,
/// ``downloadTask(with:to:)``) start suspended, like AFNetworking's, and add `suspend()`,
/// `resume()`, progress and completion handlers.
public final class Session: Sendable {
    /// The configuration, as given (the base URL normalized).
    public let configuration: SessionConfiguration
    /// The transport at the end of the chain.
    public let transport: any Transport
    /// Unique within the process.
    public let id: UInt64

    let chain: InterceptorChain
    let completionQueue: DispatchQueue
    let registry = TaskRegistry()
    private static let counter = Atomic<UInt64>(0)

    /// A session sending through `transport`.
    public init(configuration: SessionConfiguration = SessionConfiguration(), transport: any Transport) {
        var configuration = configuration
        configuration.baseURL = configuration.baseURL.map(URLResolution.normalizedBaseURL)
        let id = Self.counter.add(1, ordering: .relaxed).newValue
        self.id = id
        self.configuration = configuration
        self.transport = transport
        self.completionQueue = configuration.completionQueue
            ?? DispatchQueue(label: "courier.session-\(id).completion")
        self.chain = InterceptorChain(
            application: configuration.interceptors,
            retrier: configuration.retrier,
            redirectPolicy: configuration.redirectPolicy,
            network: configuration.networkInterceptors,
            transport: transport
        )
    }

    /// The normalized base URL.
    public var baseURL: URL? { configuration.baseURL }

    /// The tasks that have started and not yet finished (a handle joins when first resumed).
    public var tasks: [SessionTask] { registry.tasks }

    /// Stops taking new tasks. With `cancelingTasks`, cancels the live ones; otherwise lets them
    /// finish (AFNetworking's `invalidateSessionCancelingTasks:`).
    public func invalidate(cancelingTasks: Bool) {
        let live = registry.invalidate()
        guard cancelingTasks else { return }
        for task in live { task.cancel() }
    }

    /// True after ``invalidate(cancelingTasks:)``.
    public var isInvalidated: Bool { registry.isInvalidated }

    // MARK: Building requests

    /// A request for `path` resolved against the base URL, with the session's header fields
    /// overridden by `headers`.
    ///
    /// Credentials in the URL (`https://user:password@host/`, in `path` or in a base URL a relative `path`
    /// resolves against) become an HTTP Basic `Authorization` field, percent-decoded, unless the fields already have
    /// one, as curl, Go and Python's clients use them; the request's authority never carries them. They went
    /// nowhere before: the request was sent without them, and its `401` said nothing of why.
    public func makeRequest(
        _ method: HTTPRequest.Method,
        _ path: String,
        headers: HTTPFields = [:]
    ) throws(CourierError) -> HTTPRequest {
        let url: URL
        do {
            url = try URLResolution.resolve(path, against: configuration.baseURL)
        } catch {
            throw CourierError(stage: .requestSerialization, underlyingError: error)
        }
        var fields = configuration.headers.overridden(by: headers)
        if fields[.authorization] == nil, let basic = URLCredentials.basicAuthorization(in: url) {
            fields[.authorization] = basic
        }
        return HTTPRequest(method: method, url: url, headerFields: fields)
    }

    /// `request` and its body after the session's request serializer applied `parameters`.
    public func serialize(_ request: HTTPRequest, parameters: Parameters?) throws(CourierError) -> SerializedRequest {
        guard let serializer = configuration.requestSerializer else {
            guard parameters == nil else {
                throw CourierError(
                    stage: .requestSerialization, request: request,
                    underlyingError: InvalidRequestError(
                        .noRequestSerializer, input: "\(request.method) \(request.path ?? "")",
                        detail: "parameters were given but the session has no request serializer; set SessionConfiguration.requestSerializer (CourierRequestSerialization has AFNetworking's)"
                    )
                )
            }
            return SerializedRequest(request: request, body: nil)
        }
        do {
            return try serializer.serialize(request, parameters: parameters)
        } catch {
            throw CourierError.wrapping(error, stage: .requestSerialization, request: request)
        }
    }

    /// Applies `serializer` to a buffered response, wrapping its error with the exchange.
    func serialize<Serializer: ResponseSerializer>(
        _ response: DataResponse,
        with serializer: Serializer
    ) throws(CourierError) -> Serializer.Value {
        do {
            return try serializer.serialize(response)
        } catch {
            throw CourierError.wrapping(
                error, stage: .responseSerialization, request: response.request,
                response: response.head, responseBody: response.data
            )
        }
    }

    // MARK: Task plumbing

    @inline(never)   // sync work kept out of the callers' async frames (see CourierError.wrapping)
    func makeTask(kind: SessionTask.Kind, request: HTTPRequest) -> SessionTask {
        // No composite around a listener that is alone: every event would pass through one more call and
        // each task would allocate the pair.
        let listener: any EventListener = switch (configuration.eventListener, configuration.eventListenerFactory) {
        case (let shared?, let factory?): shared + factory(request)
        case (let shared?, nil): shared
        case (nil, let factory?): factory(request)
        case (nil, nil): SilentEventListener()
        }
        let task = SessionTask(
            kind: kind, request: request, sessionID: id, listener: listener,
            callbackQueue: completionQueue, registry: registry
        )
        // Tasks join the registry only when they start (admit), so a handle that is never
        // resumed leaks nothing.
        listener.taskCreated(task)
        return task
    }

    func makeContext(for task: SessionTask, options: RequestOptions) -> RequestContext {
        RequestContext(task: task, timeouts: configuration.timeouts, trustEvaluator: configuration.trustEvaluator, options: options)
    }

    /// Runs the chain for `task`, turning every failure into a `CourierError` and every failure
    /// of a cancelled task into a cancellation.
    nonisolated(nonsending) func runChain(_ request: HTTPRequest, body: Body?, task: SessionTask, options: RequestOptions) async throws(CourierError) -> Response {
        do {
            var response = try await chain.run(request, body: body, context: makeContext(for: task, options: options))
            if response.request == nil { response.request = task.currentRequest }
            return response
        } catch {
            throw normalized(error, task: task, request: request)
        }
    }

    @inline(never)   // see CourierError.wrapping
    func normalized(_ error: any Error, task: SessionTask, request: HTTPRequest) -> CourierError {
        var wrapped = CourierError.wrapping(error, stage: .transport, request: request)
        if task.control.isCancelled || Task.isCancelled, !wrapped.isCancellation {
            wrapped.underlyingError = CancellationError()
        }
        return wrapped
    }

}

extension CourierError {
    /// The error of a call refused by an invalidated session.
    static func invalidated(_ request: HTTPRequest) -> CourierError {
        CourierError(stage: .session, request: request, underlyingError: SessionError.invalidated)
    }
}
