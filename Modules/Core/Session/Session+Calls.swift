import FoundationEssentials
import HTTPTypes

extension Session {
    /// Sends `request` through the chain and returns once the response head is known; the body
    /// streams and is yours to read (or drop). Runs in the caller's Swift task: cancelling it
    /// cancels the transfer. The task behind the call completes when the head arrives.
    /// `options` change the session's configuration for this call only.
    public func send(_ request: HTTPRequest, body: Body? = nil, options: RequestOptions = .default) async throws(CourierError) -> Response {
        let task = makeTask(kind: body == nil ? .data : .upload, request: request)
        try start(task, inlineWith: request)
        let outcome = await withTaskCancellationHandler {
            do throws(CourierError) {
                return Result<Response, CourierError>.success(try await runChain(request, body: body, task: task, options: options))
            } catch {
                return .failure(error)
            }
        } onCancel: {
            task.cancel()
        }
        task.finish(outcome.map(\.head))
        return try outcome.get()
    }

    /// Sends `request` and reads the whole response body (up to
    /// ``SessionConfiguration/maximumResponseBodySize``, or the bound in `options`). Runs in the
    /// caller's Swift task. `options` change the session's configuration for this call only.
    public func data(for request: HTTPRequest, body: Body? = nil, options: RequestOptions = .default) async throws(CourierError) -> DataResponse {
        let task = makeTask(kind: body == nil ? .data : .upload, request: request)
        try start(task, inlineWith: request)
        let outcome = await withTaskCancellationHandler {
            await performData(request, body: { body }, task: task, options: options)
        } onCancel: {
            task.cancel()
        }
        return try Self.finish(task, with: outcome)
    }

    /// Ends the task of a structured call with its outcome. Out of line so that its temporaries stay out of the
    /// callers' async frames (see `CourierError.wrapping`).
    @inline(never)
    private static func finish(_ task: SessionTask, with outcome: consuming Result<DataResponse, CourierError>) throws(CourierError) -> DataResponse {
        task.finish(outcome.map(\.head))
        // Moved out, not copied (`get()` would copy the response and release the original).
        switch consume outcome {
        case .success(let response): return response
        case .failure(let error): throw error
        }
    }

    /// A data task for `request`, suspended until `resume()` (or until its response is awaited).
    public func dataTask(with request: HTTPRequest, body: Body? = nil, options: RequestOptions = .default) -> DataTask {
        makeDataTask(kind: body == nil ? .data : .upload, request: request, options: options) { body }
    }

    /// An upload task sending `source` as the body of `request`, suspended until `resume()`.
    /// A file is opened when the task starts; a missing one fails the task with a ``FileError``.
    public func uploadTask(with request: HTTPRequest, from source: UploadSource, options: RequestOptions = .default) -> DataTask {
        makeDataTask(kind: .upload, request: request, options: options) { try source.makeBody() }
    }

    /// A download task writing the body of `request` to a file moved to `destination` at the end,
    /// suspended until `resume()`.
    public func downloadTask(with request: HTTPRequest, to destination: DownloadDestination, options: RequestOptions = .default) -> DownloadTask {
        let task = makeTask(kind: .download, request: request)
        let handle = DownloadTask(task: task, session: self)
        install(on: task, resolving: handle.slot, head: \.head) { [self] task in
            await performDownload(request, destination: destination, task: task, options: options)
        }
        return handle
    }

    /// A download task that continues the one `resumeData` came from (a failed or cancelled
    /// download's ``CourierError/resumeData``): it sends `Range` and `If-Range`, appends a `206` to
    /// the partial file, starts over on a `200`, and moves the completed file to `destination`.
    /// Suspended until `resume()`.
    public func downloadTask(
        resumingWith resumeData: ResumeData, to destination: DownloadDestination, options: RequestOptions = .default
    ) -> DownloadTask {
        let request = resumeData.request
        let task = makeTask(kind: .download, request: request)
        let handle = DownloadTask(task: task, session: self)
        install(on: task, resolving: handle.slot, head: \.head) { [self] task in
            await performDownload(request, destination: destination, task: task, options: options, resuming: resumeData)
        }
        return handle
    }

    // MARK: Internals

    @inline(never)   // sync work kept out of the callers' async frames (see CourierError.wrapping)
    private func start(_ task: SessionTask, inlineWith request: HTTPRequest) throws(CourierError) {
        guard task.startInline() else {
            let error = CourierError.invalidated(request)
            task.finish(.failure(error))
            throw error
        }
    }

    private func makeDataTask(
        kind: SessionTask.Kind,
        request: HTTPRequest,
        options: RequestOptions,
        body: @escaping @Sendable () throws -> Body?
    ) -> DataTask {
        let task = makeTask(kind: kind, request: request)
        let handle = DataTask(task: task, session: self)
        install(on: task, resolving: handle.slot, head: \.head) { [self] task in
            await performData(request, body: body, task: task, options: options)
        }
        return handle
    }

    /// Gives a handle's task its work: run `perform` when resumed (or fail if the session was
    /// invalidated meanwhile), and resolve `slot` when the task ends either way.
    private func install<Output: Sendable>(
        on task: SessionTask,
        resolving slot: CompletionSlot<Output>,
        head: @escaping @Sendable (Output) -> HTTPResponse,
        perform: @escaping @Sendable (SessionTask) async -> Result<Output, CourierError>
    ) {
        // Nothing here captures `task` (see SessionTask.Hooks): it is handed back when the hooks run.
        let request = task.originalRequest
        task.install(SessionTask.Hooks(
            run: { task, admitted in
                let outcome = admitted ? await perform(task) : .failure(.invalidated(request))
                task.finish(outcome.map(head)) { slot.resolve(outcome) }
            },
            abandon: { task, error in task.finish(.failure(error)) { slot.resolve(.failure(error)) } }
        ))
    }

    /// Runs the chain and buffers the body. Its failures are built in the sync functions below, out of this
    /// function's frame, which the task allocates on every call.
    nonisolated(nonsending) func performData(
        _ request: HTTPRequest,
        body makeBody: () throws -> Body?,
        task: SessionTask,
        options: RequestOptions
    ) async -> Result<DataResponse, CourierError> {
        let body: Body?
        do {
            body = try makeBody()
        } catch {
            return .failure(Self.serializationFailure(error, request: request))
        }
        let response: Response
        do {
            response = try await runChain(request, body: body, task: task, options: options)
        } catch {
            return .failure(error)
        }
        let limit = options.maximumResponseBodySize ?? configuration.maximumResponseBodySize
        // A body that arrived whole (most small responses) is taken without an async call.
        if let whole = buffered(response, limit: limit, request: request, task: task) { return whole }
        do {
            let data = try await response.body.collect(upTo: limit)
            return .success(Self.dataResponse(response, data: data, request: request, task: task))
        } catch {
            return .failure(bodyFailure(error, response: response, request: request, task: task))
        }
    }

    /// The outcome of a call whose body is buffered, or nil when it must be read.
    @inline(never)
    private func buffered(_ response: Response, limit: Int, request: HTTPRequest, task: SessionTask) -> Result<DataResponse, CourierError>? {
        do {
            guard let data = try response.bufferedBytes(upTo: limit) else { return nil }
            return .success(Self.dataResponse(response, data: data, request: request, task: task))
        } catch {
            return .failure(bodyFailure(error, response: response, request: request, task: task))
        }
    }

    @inline(never)
    private static func serializationFailure(_ error: any Error, request: HTTPRequest) -> CourierError {
        CourierError.wrapping(error, stage: .requestSerialization, request: request)
    }

    @inline(never)
    private static func dataResponse(_ response: Response, data: Data, request: HTTPRequest, task: SessionTask) -> DataResponse {
        DataResponse(
            request: response.request ?? request, head: response.head, data: data,
            metrics: task.hasMetrics ? .task(task) : response.metricsBox.map(MetricsSource.box), history: response.history
        )
    }

    @inline(never)
    private func bodyFailure(_ error: any Error, response: Response, request: HTTPRequest, task: SessionTask) -> CourierError {
        var wrapped = normalized(error, task: task, request: response.request ?? request)
        if !(error is CourierError) { wrapped.stage = .responseBody }
        wrapped.response = response.head
        return wrapped
    }
}
