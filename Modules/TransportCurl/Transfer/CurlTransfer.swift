internal import CCurl
import CourierCore
import FoundationEssentials
import HTTPTypes
import Synchronization

/// One exchange on the curl thread: the easy handle, its callbacks, and the hand-over of head,
/// body, progress and metrics to the task.
///
/// Life: made by `send` on the caller's thread, handed to the loop with `.add` (through the
/// loop's locked command queue, together with the continuation waiting for the head), then
/// touched only by the loop thread, except for the pipes (locked) and
/// `cancel(with:)`/`requestPauseUpdate()`, which only submit commands.
final class CurlTransfer: @unchecked Sendable {
    // @unchecked: see above; every mutable field below `// Loop thread only` is confined to the
    // loop thread after the `.add` hand-over.

    /// The caller waiting for the response head.
    typealias HeadContinuation = UnsafeContinuation<Response, any Error>

    /// Its scheme, authority and path are checked by `CurlTransport.send` and present.
    let request: HTTPRequest
    let context: RequestContext
    let options: CurlTransport.Configuration
    /// Where the request body comes from.
    private let upload: RequestBodySource
    private let uploadLength: Int64?
    private let loop: CurlMultiLoop
    /// The task reading a streamed request body; only streamed uploads have one.
    private let pump: Locked<Task<Void, Never>?>?
    /// Runs the request's trust evaluator in the TLS handshake (https requests with an evaluator only).
    /// Touched on the loop thread only, like the fields below.
    let trustHook: TrustHook?
    /// Whether the request goes over TLS to its origin (an `https` URL).
    private let isHTTPS: Bool
    /// The line in which this transfer waits for a free connection before it enters the multi handle, or nil
    /// (``CurlOptions/admissionKey(of:options:trustEvaluator:)``).
    let admissionKey: CurlOptions.AdmissionKey?

    // Loop thread only
    var easyHandle: UnsafeMutableRawPointer?
    /// When the request's time is up, for a transfer that waited for a free connection (``HostAdmission``):
    /// set when it began to wait, from the request's limit at that moment (the call's timeout, or what was
    /// left of its deadline), so the wait counts once.
    var requestDeadline: ContinuousClock.Instant?
    /// The request limit given to libcurl (`CURLOPT_TIMEOUT_MS`), in milliseconds; 0 for none.
    var libcurlTimeoutMilliseconds = 0
    /// When libcurl should have ended the transfer by its request limit at the latest: the limit counted from
    /// the `curl_multi_perform` that started it, after which libcurl starts its own clock (``OverdueWatch``).
    var overdueDeadline: ContinuousClock.Instant?
    var isDirty = false
    /// The ends of the connection libcurl gave the request (``onConnectionReady(remoteAddress:remotePort:localPort:)``).
    @exclusivity(unchecked) private(set) var connectionEnds: ConnectionSockets.Endpoints?
    /// How many times libcurl gave the request a connection: more than once when it sent the request again on a new
    /// one. With `endedCleanly`, whether the handle may go back to the pool (``handleMayHaveRetried``).
    private var connectionsGiven = 0
    /// libcurl ended the transfer with `CURLE_OK`.
    private var endedCleanly = false
    /// How many times the transport sent the request again after its connection was lost before any answer
    /// (``mayResend(after:)``): at most once. Loop thread only.
    private var resends = 0
    /// Whether the connection libcurl last gave the request is an HTTP/1 connection an earlier exchange ended on, as the
    /// loop's reuse check found it when the request was given it (``CurlMultiLoop/connectionReady(endpoints:)``). Loop
    /// thread only.
    private var givenKeptHTTP1Connection = false
    /// Whether libcurl's error buffer already held a message when libcurl gave the request its last connection: the
    /// message of an attempt libcurl made before it sent the request again on that connection. libcurl 7.88 writes
    /// the buffer once per transfer, at its first failure, so such a message says nothing of how the last attempt
    /// failed. Loop thread only.
    private var messageBeforeLastConnection = false
    /// Whether the request, sent again, must have a new connection: not one kept from an earlier exchange, which may
    /// be as gone as the one that failed (an HTTP/1 server that closed its idle connections at once).
    /// Loop thread only; read by ``CurlOptions/configureRequest(_:for:userData:)``.
    private(set) var resendsOnNewConnection = false
    /// Which of the loop's connection grants was this request's last (``CurlMultiLoop/connectionGrants``).
    private(set) var connectionGrant: UInt64 = 0
    /// The ends of the connections libcurl gave the request before it moved it to ``connectionEnds``.
    private(set) var earlierConnectionEnds: [ConnectionSockets.Endpoints] = []
    /// In the loop's list of transfers whose pause is tried again after the next pass.
    var isPausePending = false
    // `machine`, `headers`, `head`, `earlyBody` and `parser` are unchecked for exclusive access, like the loop's own
    // state (``CurlMultiLoop``): the loop thread alone touches them, each access is a change to a pure value that
    // calls nothing of the transfer's, and libcurl's callbacks reach them several times per response.
    /// Phases and pause bookkeeping (see ``TransferStateMachine``).
    @exclusivity(unchecked) private var machine = TransferStateMachine()
    @exclusivity(unchecked) private var headers = CurlHeaderList()
    @exclusivity(unchecked) private var parser: ResponseHeadParser
    @exclusivity(unchecked) private var head: HTTPResponse?
    /// Body bytes that came before the head was handed over. A small response usually arrives whole in the
    /// pass that brings its head; it then travels as this one buffer, with no pipe, no chunk arrays and no
    /// copy. Once bytes have gone to the pipe (`earlyBodyClosed`), every later byte follows them there. Its room is
    /// reserved in `init`, on the caller's thread (``WholeBodyReservation``).
    @exclusivity(unchecked) private var earlyBody = Data()
    private var earlyBodyClosed = false
    /// The room `init` reserved in `earlyBody`: a body much smaller than it is handed over compacted.
    private var reservedCapacity = 0
    /// Carries the body to its reader once bytes can no longer wait in `earlyBody`. Made on the loop thread when
    /// first needed (`streamingPipe()`), so a response that arrives whole costs no pipe; a reader gets it with
    /// its ``BodyReader``, made after this is set.
    private var responsePipe: ResponseBodyPipe?
    /// Resumed exactly once: `deliverHead` and `failHeadWaiter`, the only two that resume it, take it out of
    /// this field first, on the one thread that owns the transfer at the time (the loop's, or the one that found
    /// the loop stopped). So a second resume cannot happen, and the checked kind's guard against one would cost
    /// a `malloc` per call (its canary) for nothing. ThreadSanitizer sees the hand-over through
    /// ``SessionTask/orderHandOver()``.
    var headContinuation: HeadContinuation?
    /// Whether the caller waiting for the head runs on the curl thread itself (a preference for the transport's
    /// executor): resuming it wakes no thread, so holding it for others (``CompletionCoalescing``) gains nothing.
    /// Set on the caller's thread before the `.add` hand-over; read on the loop thread after.
    private var resumesOnLoopThread = false
    /// False once a cancellation came for the transfer (before or after it finished): its caller is then resumed at
    /// the next flush, never held. Loop thread only.
    var mayBeHeld = true
    /// The body's length on the wire as the head announced it (`Content-Length`): read once from
    /// the head, used for progress, and for the body's length when it is not decoded.
    private var announcedLength: Int64?
    private var memoryOffset = 0
    /// Set for an HTTPS response whose body ends with its connection: whether the server's `close_notify` came, without
    /// which such a body may have been cut short (``CloseNotifyWatch``). Loop thread only.
    private var closeNotifyWatch: CloseNotifyWatch?
    /// Whether the head framed its body both by a transfer coding and by a length, or by a transfer coding in HTTP/1.0:
    /// the connection is then retired when the exchange ends, so that no later request reads what a party framing
    /// otherwise took for another response (``ContentLengthCheck/Reading/forbidsReuse(version:)``). Loop thread only.
    private var retiresConnection = false
    /// Bytes of trailer fields seen so far (after a chunked body, or HTTP/2's trailing HEADERS). Loop thread only.
    private var trailerBytes = 0
    private var abortError: (any Error)?
    private var received: Int64 = 0
    private var reportedReceived: Int64 = -1
    private var uploadNow: Int64 = 0
    private var reportedUpload: Int64 = -1
    private var pendingMetrics: TransferMetrics?
    private var ending: Result<Void, any Error>?
    /// curl writes its detailed error message here: the buffer of the pooled handle, taken with it.
    private var errorBuffer: UnsafeMutablePointer<CChar>?
    /// What the handle's `socket` calls did (``SocketOpenings``), taken with the handle.
    private var socketOpenings: SocketOpenings?
    /// Set in `init`, before the transfer is shared; cancelled when the transfer ends (`finishOnce`), which
    /// lets go of the control's reference to this transfer.
    private var observation: TransferControl.Observation?


    /// Keeps the transport (and so its curl thread) alive while this transfer or its body lives.
    private let owner: CurlTransport

    init(request: HTTPRequest, body: Body?, context: RequestContext, owner: CurlTransport) {
        let options = owner.configuration
        let loop = owner.loop
        self.owner = owner
        self.request = request
        self.context = context
        self.options = options
        self.loop = loop
        self.parser = ResponseHeadParser(recentFields: loop.recentFields)
        if let body {
            if case .known(let count) = body.length { uploadLength = count } else { uploadLength = nil }
            if let bytes = body.bufferedBytes, body.iterationBehavior == .multiple {
                upload = .memory(bytes)
            } else if let segments = body.segments {
                upload = .segments(UploadSegments(segments: segments))
            } else {
                upload = .stream(RequestBodyPipe(limit: options.requestBufferSize, maximumRead: body.maximumReadSize))
            }
        } else {
            uploadLength = nil
            upload = .none
        }
        // The usual spelling first: comparing two small strings costs next to nothing, where walking the scheme's bytes
        // cost 660 instructions per request (Callgrind) and a lowercased copy about as much; another case is lowercased.
        isHTTPS = request.scheme.map { $0 == "https" || ($0.utf8.count == 5 && $0.lowercased() == "https") } ?? false
        if let evaluator = context.trustEvaluator, isHTTPS {
            let host = TrustHook.host(ofAuthority: request.authority ?? "")
            trustHook = TrustHook(
                evaluator: evaluator,
                host: host,
                url: CurlOptions.url(of: request),
                throughHTTPSProxy: ProxyHandshake.surelyThroughHTTPSProxy(
                    host: host,
                    proxy: options.proxy,
                    bypassHosts: loop.takesTrustedCallsAsProxied.load(ordering: .relaxed) ? [] : options.proxyBypassHosts,
                    unixSocketPath: options.unixSocketPath
                )
            )
        } else {
            trustHook = nil
        }
        admissionKey = CurlOptions.admissionKey(of: request, options: options, trustEvaluator: context.trustEvaluator)
        if request.method != .head {
            let capacity = loop.wholeBodyReservation.capacity(limit: options.responseBufferSize)
            if capacity > 0 {
                earlyBody = Data(capacity: capacity)
                reservedCapacity = capacity
            }
        }
        if case .stream = upload { pump = Locked(nil) } else { pump = nil }
        startPump(body)
        // A strong reference, let go in `finishOnce`: a weak one gave every transfer a side table (one more
        // allocation, and the slow reference counting that goes with it).
        observation = context.control.observe { [self] state in
            if state == .cancelled {
                self.cancel(with: CancellationError())
            } else {
                self.requestPauseUpdate()   // the loop reads the control's state itself
            }
        }
    }

    // MARK: Caller side

    /// Waits for the response head; the body then streams.
    nonisolated(nonsending) func awaitHead() async throws -> Response {
        defer { context.task.orderHandOver() }
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { continuation in
                // Before the hand-over, which orders this write before the loop's reads.
                resumesOnLoopThread = loop.isCurrentThread
                loop.submit(.add(self, continuation))
                if context.control.isCancelled { cancel(with: CancellationError()) }
            }
        } onCancel: {
            cancel(with: CancellationError())
        }
    }

    /// Aborts the transfer from any thread.
    func cancel(with error: any Error) {
        loop.submit(.cancel(self, error))
    }

    /// Asks the loop to re-apply the pause state (suspend, backpressure, upload starvation).
    func requestPauseUpdate() {
        loop.submit(.updatePause(self))
    }

    private func startPump(_ body: Body?) {
        guard let body, let pipe = uploadPipe, let pump else { return }
        let declared = uploadLength
        let task = Task { [weak self] in
            do {
                // A body that declared its length is held to it: bytes past it would go on the connection after the
                // request libcurl framed with `Content-Length`, and be read as the start of the next one; a body
                // that ends short would leave the server, and the call, waiting for the rest.
                var produced: Int64 = 0
                var chunks = body.makeAsyncIterator()
                while let chunk = try await chunks.next() {
                    produced += Int64(chunk.count)
                    // Once the declared bytes are in, libcurl needs no more, and the pump goes on reading only to catch
                    // a chunk too many, which fails the call if the exchange has not ended by then. (Holding the last
                    // bytes until the body's end would make that certain, but would hang a body whose writer ends
                    // it only once the response came.)
                    if let declared, produced > declared { throw BodyError.lengthMismatch(declared: declared, produced: produced) }
                    // The relief runs before the pump waits for room: a starved, paused upload
                    // must be resumed or the pipe would never drain.
                    try await pipe.push(chunk) { self?.requestPauseUpdate() }
                }
                if let declared, produced < declared { throw BodyError.lengthMismatch(declared: declared, produced: produced) }
                if pipe.finish() { self?.requestPauseUpdate() }
            } catch {
                if pipe.finish(throwing: error) { self?.requestPauseUpdate() }
                // libcurl may have sent the declared bytes and stopped reading, so it would never see the pipe's
                // failure: the call fails with it all the same.
                if let mismatch = error as? BodyError, mismatch.reason == .lengthMismatch { self?.cancel(with: mismatch) }
            }
        }
        pump.withLock { $0 = task }
    }

    // MARK: Loop thread

    /// Creates and configures the easy handle.
    func attach(loop: CurlMultiLoop) throws {
        guard let pooled = loop.takeEasyHandle() else { throw TransportError(.other, message: "curl_easy_init failed") }
        let easy = pooled.easy
        easyHandle = easy.raw
        errorBuffer = pooled.errorBuffer
        pooled.errorBuffer[0] = 0   // no message left from the handle's previous transfer
        socketOpenings = pooled.socketOpenings
        pooled.socketOpenings.reset()
        // Unretained: the loop's `active` table keeps the transfer alive while curl holds this.
        let me = Unmanaged.passUnretained(self).toOpaque()
        CurlOptions.configureRequest(easy, for: self, userData: me)
        try CurlOptions.configureTrust(easy, hook: trustHook, options: options, loop: loop)
    }

    func configureHeaders(on easy: CurlEasy, expectsBody: Bool) {
        // swift-http-types keeps `Cookie` as one field per cookie (HTTP/2's crumbs); a request carries them in one
        // field joined with "; " (RFC 6265 §5.4), or an HTTP/1.1 server reads two fields as one joined with ", ".
        var cookiesWritten = false
        var hasAcceptEncoding = false
        for field in request.headerFields {
            if field.name == .acceptEncoding { hasAcceptEncoding = true }
            if field.name == .cookie {
                guard !cookiesWritten else { continue }
                cookiesWritten = true
                headers.append("\(field.name.rawName): \(request.headerFields[values: .cookie].joined(separator: "; "))")
                continue
            }
            // "Name:" would tell curl to drop the header; "Name;" sends it with an empty value.
            headers.append(field.value.isEmpty ? "\(field.name.rawName);" : "\(field.name.rawName): \(field.value)")
        }
        // libcurl adds `Expect: 100-continue` to some uploads on its own; Courier sends it only when asked. A
        // request without a body never gets it, and skipping the line spares a plain GET a line to allocate.
        if expectsBody, request.headerFields[.expect] == nil { headers.append("Expect:") }
        if !expectsBody, request.headerFields[.contentType] == nil, request.method == .post {
            headers.append("Content-Type:")
        }
        // What the transport decodes, unless the request asks for something else (`identity` to resume a
        // download, say): last, as a line shared by every request, so it costs no allocation.
        if options.automaticDecompression, !hasAcceptEncoding {
            if let line = ContentCoding.acceptEncodingLine {
                headers.end(with: line)
            } else {
                headers.append("Accept-Encoding: \(ContentCoding.acceptEncoding)")
            }
        }
        easy.set(CURLOPT_HTTPHEADER, pointer: UnsafeMutableRawPointer(headers.raw))
    }

    var hasBody: Bool {
        if case .none = upload { return false }
        return true
    }

    /// The pipe a streamed request body arrives through, if it is streamed.
    var uploadPipe: RequestBodyPipe? {
        if case .stream(let pipe) = upload { return pipe }
        return nil
    }
    var bodyLength: Int64? { uploadLength }

    /// Whether libcurl never gave the transfer a connection (no peer address, no connect time): it waited for
    /// one. Loop thread, while the transfer is in the multi handle.
    var neverConnected: Bool {
        guard let easyHandle else { return true }
        let easy = CurlEasy(unsafeRaw: easyHandle)
        return (easy.info(string: CURLINFO_PRIMARY_IP) ?? "").isEmpty && (easy.info(offset: CURLINFO_CONNECT_TIME_T) ?? 0) == 0
    }

    /// Added to the multi handle: the request is on its way.
    func started(loop: CurlMultiLoop) {
        _ = machine.started()
        // Once per call: a request the transport sends again (``mayResend(after:)``) is the same exchange to its
        // observers, as one libcurl sends again itself is.
        if resends == 0 { context.requestSent(request) }
        applyPauseState()
    }

    /// Applies suspend (read from the control, so it is never stale), backpressure and upload
    /// starvation as one pause mask. curl refuses to pause a transfer that has no connection
    /// yet; the loop then tries again after its next pass. Callbacks that run inside
    /// `curl_easy_pause` may pause the transfer again; ``TransferStateMachine`` keeps that pause.
    func applyPauseState() {
        guard let easyHandle else { return }
        let desired = TransferStateMachine.desired(
            suspended: context.control.state == .suspended,
            readerBehind: responsePipe?.isBackpressured ?? false,
            uploadStarved: uploadPipe?.isStarved ?? false
        )
        guard case .apply(let mask) = machine.pauseAction(desired: desired) else { return }
        var bits: Int32 = 0
        if mask.contains(.receive) { bits |= Int32(ccurl_pause_recv) }
        if mask.contains(.send) { bits |= Int32(ccurl_pause_send) }
        let succeeded = curl_easy_pause(easyHandle, bits) == CURLE_OK
        machine.pauseCallReturned(succeeded: succeeded)
        if !succeeded { loop.retryPauseLater(self) }
        loop.markDirty(self)
    }

    /// The request has its connection, new or reused (libcurl's prerequest callback), before a byte of it is sent;
    /// again if libcurl then moves it to a new connection. False refuses the connection: the trust evaluator has not
    /// judged the server on it (``TrustHook/mayUseConnection()``), and the transfer fails with the hook's reason.
    func onConnectionReady(remoteAddress: UnsafePointer<CChar>?, remotePort: Int32, localPort: Int32) -> Bool {
        if let trustHook, !trustHook.mayUseConnection() {
            retireUnjudgedConnection(ends: ConnectionSockets.Endpoints(remoteAddress: remoteAddress, remotePort: remotePort, localPort: localPort))
            return false
        }
        connectionsGiven += 1
        messageBeforeLastConnection = errorBuffer.map { $0[0] != 0 } ?? false
        if let earlier = connectionEnds { earlierConnectionEnds.append(earlier) }
        connectionEnds = ConnectionSockets.Endpoints(remoteAddress: remoteAddress, remotePort: remotePort, localPort: localPort)
        givenKeptHTTP1Connection = false
        if let connectionEnds {
            givenKeptHTTP1Connection = loop.connectionReady(endpoints: connectionEnds)
            connectionGrant = loop.connectionGrants
        }
        return true
    }

    /// The connection the trust hook refused carries nothing more. libcurl closes it when this transfer ends rather than
    /// keep it (the hook turned `CURLOPT_FORBID_REUSE` on at the proxy's handshake): an HTTP/2 connection outlives a
    /// stream the prerequest callback aborts, and the next call with an equal evaluator would be given it, with no
    /// handshake of its own to judge. And it is shut down now, so that nothing libcurl gives it meanwhile goes out on
    /// it; only when its ends name one socket for sure (not a long IPv6 address, which they keep as a hash and match by
    /// the ports alone, maybe another connection's).
    private func retireUnjudgedConnection(ends: ConnectionSockets.Endpoints?) {
        if let ends, ends.peerAddress != nil { loop.shutDownConnection(with: ends) }
    }

    /// The transfer ended in curl.
    func finished(result: CURLcode, loop: CurlMultiLoop) {
        guard machine.ended() else { return }
        if let easy = easyHandle.map({ CurlEasy(unsafeRaw: $0) }) {
            let version = easy.info(CURLINFO_HTTP_VERSION) ?? 0
            if let connectionEnds {
                loop.exchangeEnded(on: connectionEnds, version: version, easy: easy)
                if retiresConnection {
                    loop.retireCondemnedConnection(on: connectionEnds, endedWell: result == CURLE_OK && (version == 1 || version == 2))
                }
            }
            pendingMetrics = CurlMetrics.read(from: easy, httpVersion: version)
            if result == CURLE_OK, head == nil {
                // A response without a head callback (HTTP/0.9 is refused, so rare): synthesize it.
                let code = easy.info(CURLINFO_RESPONSE_CODE) ?? 0
                head = HTTPResponse(status: .init(code: code))
            }
        }
        if result == CURLE_OK {
            endedCleanly = true
            if let closeNotifyWatch, !closeNotifyWatch.received {
                ending = .failure(TransportError(
                    .truncatedBody,
                    message: "the TLS connection ended without the server's close_notify after \(received) bytes of a body that ends with its connection (it has neither Content-Length nor chunked coding): anyone on the path can end a connection, so the body may have been cut short (RFC 9112, section 9.8)"
                ))
            } else {
                ending = .success(())
            }
        } else if result == CURLE_OUT_OF_MEMORY, head == nil, abortError == nil {
            // libcurl refuses a header block over 100 KiB with "out of memory".
            ending = .failure(TransportError(
                .malformedResponse,
                message: "the response head is larger than libcurl accepts (100 KiB) or memory ran out",
                underlyingCode: Int(result.rawValue)
            ))
        } else {
            // A refusal by the trust evaluator is the error, not libcurl's generic verification failure.
            ending = .failure(abortError ?? trustHook?.rejection ?? libcurlError(for: result))
        }
        loop.markDirty(self)
    }

    /// The typed error of libcurl's failure `result`, from its code, message and what the handle knows of it.
    /// Loop thread, while the transfer still has its handle.
    private func libcurlError(for result: CURLcode) -> TransportError {
        // Repaired, not refused, when not UTF-8: `strerror` speaks the locale's language and encoding, and an empty
        // detail would read as libcurl saying nothing.
        let message = errorBuffer.map { String(cString: $0) } ?? ""
        // An HTTP/2 failure whose message is an earlier attempt's is typed as the bare code it was (``isBareHTTP2Failure``);
        // the message stays, as what happened first.
        let earlier = result == CURLE_HTTP2 && messageBeforeLastConnection && !message.isEmpty
        let detail = CurlErrors.detail(earlier ? "" : message, of: result, socketErrno: socketOpenings?.failure ?? 0)
        // What a SOCKS proxy said, which libcurl reports under one code whatever it was.
        let proxyError = result == CURLE_PROXY
            ? easyHandle.flatMap { CurlEasy(unsafeRaw: $0).info(CURLINFO_PROXY_ERROR) } ?? 0
            : 0
        // Why a socket's send failed: a peer that closed or reset the connection.
        let osErrno = result == CURLE_SEND_ERROR
            ? easyHandle.flatMap { CurlEasy(unsafeRaw: $0).info(CURLINFO_OS_ERRNO) } ?? 0
            : 0
        var error = CurlErrors.transportError(for: result, detail: detail, proxyError: proxyError, osErrno: osErrno)
        if earlier { error.message += " (before it, on an earlier connection: \(message))" }
        return error
    }

    /// Whether libcurl failed the request with `CURLE_HTTP2` and no message of its own for the last attempt: its
    /// buffer empty, or holding an earlier attempt's message (``messageBeforeLastConnection``). libcurl 7.88's way of
    /// saying that the HTTP/2 session ended under the stream, most often by a GOAWAY that refused it.
    private func isBareHTTP2Failure(_ result: CURLcode) -> Bool {
        guard result == CURLE_HTTP2, let errorBuffer else { return false }
        return errorBuffer[0] == 0 || messageBeforeLastConnection
    }

    /// Whether the request, which libcurl has just ended with `result`, is to be sent again on another connection
    /// (``ConnectionLossResend``): its connection was lost before a byte of an answer came (a send met the close of a
    /// kept HTTP/1 connection, or a GOAWAY refused its stream), and its body can be read again from its start, which
    /// this rewinds it to. Loop thread, before ``finished(result:loop:)``, with the handle still in the multi handle.
    func mayResend(after result: CURLcode) -> Bool {
        // Only the two losses libcurl leaves to its caller; nothing to read of any other ending. (Whether sending again
        // is on is the rule's to say.)
        guard result == CURLE_HTTP2 || result == CURLE_SEND_ERROR, let easyHandle else { return false }
        let error = libcurlError(for: result)
        let loss: ConnectionLossResend.Loss
        if isBareHTTP2Failure(result) {
            loss = .goawayRefusal
        } else if result == CURLE_SEND_ERROR, error.code == .connectionLost {
            loss = .sendMetClose
        } else {
            return false
        }
        let timeIsUp = overdueDeadline.map { $0 <= ContinuousClock.now } ?? false
        let attempt = ConnectionLossResend.Attempt(
            loss: loss,
            keptHTTP1Connection: givenKeptHTTP1Connection,
            headBytes: CurlEasy(unsafeRaw: easyHandle).info(CURLINFO_HEADER_SIZE),
            bodyBytes: received,
            endedByCourier: abortError != nil || trustHook?.rejection != nil || context.control.isCancelled || timeIsUp
        )
        let decision = ConnectionLossResend.decide(attempt, enabled: options.resendsOnConnectionLoss, resentBefore: resends > 0)
        guard decision != .no, head == nil, onSeekToStart() else { return false }
        resendsOnNewConnection = decision == .onNewConnection
        if let handler = options.diagnostics {
            handler(TransportDiagnostic(
                kind: .info,
                text: "Courier: the connection was lost before any answer (\(error.message)); sending the request again on \(resendsOnNewConnection ? "a new connection" : "another connection")",
                taskID: context.task.id, sessionID: context.task.sessionID
            ))
        }
        return true
    }

    /// Makes the transfer, whose handle the loop has taken out of the multi handle and given back
    /// (``mayResend(after:)``), ready to be started again with a new handle: it forgets its connection and what it
    /// read of it, and keeps the request's deadline, so the second attempt has what is left of the call's time.
    func prepareToResend() {
        resends += 1
        let left = machine.leftToResend()
        assert(left, "a transfer sent again must be running, its head not handed over")
        if libcurlTimeoutMilliseconds > 0, requestDeadline == nil { requestDeadline = overdueDeadline }
        overdueDeadline = nil
        connectionEnds = nil
        earlierConnectionEnds = []
        connectionsGiven = 0
        endedCleanly = false
        connectionGrant = 0
        parser = ResponseHeadParser(recentFields: loop.recentFields)
        closeNotifyWatch = nil
        retiresConnection = false
        trailerBytes = 0
        uploadNow = 0   // reported again only past what was reported: progress never goes back
        givenKeptHTTP1Connection = false
        pendingMetrics = nil
    }

    /// The transfer ended outside curl (cancelled, or could not start).
    func fail(with error: any Error, loop: CurlMultiLoop) {
        guard machine.ended() else { return }
        // libcurl closes an HTTP/1 connection whose exchange was cut off; the mark on it goes.
        if retiresConnection, let connectionEnds { loop.retireCondemnedConnection(on: connectionEnds, endedWell: false) }
        ending = .failure(error)
        loop.markDirty(self)
    }

    deinit {
        observation?.cancel()
    }

    /// Gives the easy handle back (for the loop's pool) and frees the header list, first
    /// clearing the handle's pointers to what this transfer owns.
    func takeHandle() -> PooledEasy? {
        defer {
            easyHandle = nil
            errorBuffer = nil
            socketOpenings = nil
        }
        var pooled: PooledEasy?
        if let easyHandle, let errorBuffer, let socketOpenings {
            let easy = CurlEasy(unsafeRaw: easyHandle)
            easy.set(CURLOPT_HTTPHEADER, pointer: nil)
            if trustHook != nil {
                // The handle must not point at a hook this transfer no longer keeps alive.
                ccurl_easy_setopt_ssl_ctx_function(easy.raw, nil)
                easy.set(CURLOPT_SSL_CTX_DATA, pointer: nil)
            }
            pooled = PooledEasy(easy: easy, errorBuffer: errorBuffer, socketOpenings: socketOpenings)
        }
        headers.free()
        return pooled
    }

    /// Whether libcurl may have sent the request again on a new connection (a reused one died before an answer, or
    /// an HTTP/2 stream was refused): a second connection, or one and no clean end (a retry whose new connection
    /// failed, or a transfer taken out before its end). libcurl 7.88 counts such retries per handle across all its
    /// transfers, and zeroes the count only when it gives up, so a pooled handle that had retried five times in its
    /// life failed the next retry of any request ("Connection died, tried 5 times before giving up"; curl #19066).
    /// The loop frees such a handle rather than pool it. Loop thread, once the transfer has left the multi handle.
    var handleMayHaveRetried: Bool {
        connectionsGiven > 1 || (connectionsGiven == 1 && !endedCleanly)
    }

    /// Whether the request may still wait in nghttp2's queue on the connection it was given, holding the handle's
    /// address (`CurlMultiLoop+QueuedRequests.swift`): it had a connection, ended before a head came, not cleanly,
    /// and may have spoken HTTP/2. Loop thread, once the transfer has left the multi handle.
    var mayLeaveQueuedRequest: Bool {
        connectionsGiven > 0 && !endedCleanly && head == nil && maySpeakHTTP2
    }

    /// Whether the request may have gone over HTTP/2 (with multiplexing off too, ALPN may choose it; a cleartext
    /// request without prior knowledge, or one held to HTTP/1.1, cannot).
    var maySpeakHTTP2: Bool {
        options.httpVersion != .http1_1 && (isHTTPS || options.httpVersion == .http2)
    }

    /// Whether the transfer ended with its whole answer before its head was handed over, and its caller runs off
    /// the curl thread: the loop may hold it to resume it with others (``CompletionCoalescing``). Failures are never
    /// held: they are rare, and a cancellation or a timeout should land at once. Loop thread only.
    var canWaitToResume: Bool {
        guard mayBeHeld, case .success? = ending else { return false }
        return headContinuation != nil && !machine.headDelivered && !resumesOnLoopThread
    }

    /// Whether the transfer on the wire may end soon, so that holding a finished one for it can pay: its caller still
    /// waits for its head, or what is left of a body of announced length fits in one read (a small answer whose head
    /// came a pass before its body). A stream of unknown length (server-sent events) or with much left may stay open
    /// for long. Loop thread only.
    var mayEndSoon: Bool {
        if headContinuation != nil { return true }
        guard let announcedLength else { return false }
        return announcedLength - received <= Int64(options.receiveBufferSize)
    }

    /// Reports and hands over whatever the last pass produced. Outside every curl callback.
    func flush(loop: CurlMultiLoop) {
        // Only forward: a body libcurl or the transport sends again from its start counts up again from 0.
        if uploadNow > reportedUpload, uploadNow > 0 {
            reportedUpload = uploadNow
            context.uploadProgress(TransferProgress(completed: uploadNow, total: uploadLength))
        }
        uploadPipe?.wakeProducer()
        // A head that arrived is handed over even when the body then failed, so the error can
        // carry it; never after a cancellation.
        if let head, machine.deliverHead(cancelled: isCancelled) {
            deliverHead(head)
        }
        reportDownloadProgress()
        if let ending, machine.finish() {
            reportMetrics()
            finishOnce(ending)
        }
        responsePipe?.wakeReader()
    }

    private func reportDownloadProgress() {
        guard machine.headDelivered, received != reportedReceived, received > 0 else { return }
        reportedReceived = received
        context.downloadProgress(TransferProgress(completed: received, total: announcedLength))
    }

    private func reportMetrics() {
        guard let metrics = pendingMetrics else { return }
        pendingMetrics = nil
        context.metricsCollected(metrics)
    }

    private func deliverHead(_ head: HTTPResponse) {
        // A head that repeated the loop's template whole: its length (`onHeaderLine`) and codings were read once, for
        // the template.
        let template = parser.repeatedTemplate
        context.responseHeadReceived(head, contentLength: announcedLength)
        // Everything this pass learned is reported before the caller resumes, so a caller that
        // finishes at once (the body may be complete) never sees stale progress or metrics.
        reportDownloadProgress()
        if ending != nil { reportMetrics() }
        let hasNoBody = request.method == .head || [204, 304].contains(head.status.code)
        let codings: Result<[ContentCoding], any Error>?
        if hasNoBody {
            codings = nil
        } else if !options.automaticDecompression {
            codings = ContentCoding.decoding(head, includingContent: false)
        } else if let template {
            codings = template.decoding
        } else {
            codings = ContentCoding.decoding(head)
        }
        let length: Body.Length
        if hasNoBody {
            length = .known(0)
        } else if let count = announcedLength, codings == nil {
            length = .known(count)
        } else {
            length = .unknown
        }
        // The bytes of a body that arrived whole, or nil for one that streams.
        var whole: Data?
        if case .success? = ending, !earlyBodyClosed {
            // The whole exchange ended in this pass (typical of small responses): the body is the early
            // buffer, handed over as it is, with no pipe reader in between.
            earlyBodyClosed = true
            var bytes = earlyBody
            earlyBody = Data()
            if !hasNoBody { loop.wholeBodyReservation.arrivedWhole(count: bytes.count) }
            // The caller may keep the body (a cache does): not in room reserved for a larger one.
            if !WholeBodyReservation.fits(count: bytes.count, reserved: reservedCapacity) {
                bytes = bytes.withUnsafeBytes { Data($0) }
            }
            whole = bytes
        } else if case .success? = ending {
            loop.wholeBodyReservation.streamed()
            var data = Data()
            let chunks = responsePipe?.drainAll() ?? []
            data.reserveCapacity(chunks.reduce(0) { $0 + $1.count })
            for chunk in chunks { data.append(contentsOf: chunk) }
            whole = data
        }
        let response: Response
        if let whole, codings == nil {
            // No `Body` object: a buffering caller takes the bytes (`Response.bufferedBytes(upTo:)`).
            response = Response(head: head, wholeBody: whole, request: request)
        } else {
            var body: Body
            if let whole {
                body = Body(whole)
            } else {
                // A body still on its way streams; a head without a body, or one whose exchange failed, says nothing
                // of the next body's size.
                if !hasNoBody, ending == nil { loop.wholeBodyReservation.streamed() }
                moveEarlyBodyToPipe()
                let reader = BodyReader(transfer: self, pipe: streamingPipe())
                body = Body(CurlResponseBody(reader: reader), length: length, iterationBehavior: .single)
            }
            if let codings {
                body = Body(
                    DecodedResponseBody(source: body, codings: codings, limits: options.decompressionLimits),
                    length: .unknown,
                    iterationBehavior: body.iterationBehavior
                )
            }
            response = Response(head: head, body: body, request: request)
        }
        let continuation = headContinuation
        headContinuation = nil
        context.task.orderHandOver()
        continuation?.resume(returning: consume response)
    }

    private var isCancelled: Bool {
        if case .failure(let error)? = ending, error is CancellationError { return true }
        return false
    }

    /// For an `.add` that arrives after the transfer already ended (cancelled before it
    /// started): hands the ending over and tells the loop not to start it.
    func endedBeforeStart(loop: CurlMultiLoop) -> Bool {
        guard let ending else { return false }
        if case .failure(let error) = ending { failHeadWaiter(error) }
        return true
    }

    /// The loop had stopped before this transfer's `.add` reached it: nothing was sent.
    /// Ends it the way every transfer ends (the upload closed, the pump stopped, the body failed), then
    /// fails the caller with the transfer's ending: the shutdown, or an earlier cancellation. Runs on
    /// whichever thread found the loop stopped; the loop never touches this transfer again, and the
    /// queue's lock orders this after anything it did.
    func refusedAfterShutdown(_ continuation: HeadContinuation, error: any Error) {
        headContinuation = continuation
        if machine.ended() { ending = .failure(error) }
        if let ending, machine.finish() { finishOnce(ending) }
        if case .failure(let reason)? = ending { failHeadWaiter(reason) }
    }

    private func failHeadWaiter(_ error: any Error) {
        guard let continuation = headContinuation else { return }
        headContinuation = nil
        context.task.orderHandOver()
        continuation.resume(throwing: error)
    }

    private func finishOnce(_ ending: Result<Void, any Error>) {
        observation?.cancel()
        observation = nil
        switch upload {
        case .segments(let segments): segments.close()
        case .stream(let pipe): pipe.cancel()
        case .memory, .none: break
        }
        pump?.withLock { $0?.cancel() }
        switch ending {
        case .success:
            responsePipe?.end(.finished)
        case .failure(let error):
            responsePipe?.end(.failed(error))
            failHeadWaiter(error)
        }
    }

    // MARK: Callbacks (loop thread, inside curl)

    func onHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard head == nil else { return acceptTrailer(bytes.count) }
        switch parser.consume(bytes) {
        case .needMore:
            return true
        case .head(let parsed):
            if let template = parser.repeatedTemplate {
                // Read once, for the template, which frames its body (``HeadTemplate``).
                announcedLength = template.contentLength
                // `.none`: a template that ends with its connection has neither a count nor a last chunked coding;
                // only this request's method (a HEAD) can still take its body away.
                if template.endsWithConnection, needsCloseNotify(parsed, reading: .none), !watchForCloseNotify() { return false }
            } else {
                // Refused before libcurl reads a byte of the body by a length the server did not give (it would
                // frame one) or after a switch to another protocol.
                let reading = ContentLengthCheck.read(parsed.headerFields)
                if let problem = ContentLengthCheck.problem(in: parsed, method: request.method, reading: reading) {
                    abortError = TransportError(.malformedResponse, message: problem)
                    return false
                }
                announcedLength = reading.count
                retiresConnection = reading.forbidsReuse(version: parser.version ?? "")
                if retiresConnection, let connectionEnds { loop.condemnConnection(on: connectionEnds) }
                if reading.count == nil, needsCloseNotify(parsed, reading: reading), !watchForCloseNotify() { return false }
            }
            head = parsed
            // A request given this connection before may have waited in nghttp2's queue; it cannot any more.
            if !loop.parkedHandles.isEmpty, let connectionEnds { loop.requestAnswered(on: connectionEnds, grant: connectionGrant) }
            loop.markDirty(self)
            return true
        case .malformed(let reason):
            abortError = TransportError(.malformedResponse, message: reason)
            return false
        }
    }

    /// Whether `parsed` is an HTTPS answer over HTTP/1 whose body ends with its connection, which is whole only after
    /// the server's close_notify (``BodyFraming/endsWithConnection(_:version:method:reading:)``), unless the
    /// configuration takes a bare end (``CurlTransport/Configuration/requiresCloseNotify``).
    private func needsCloseNotify(_ parsed: HTTPResponse, reading: ContentLengthCheck.Reading) -> Bool {
        isHTTPS && options.requiresCloseNotify
            && BodyFraming.endsWithConnection(parsed, version: parser.version ?? "", method: request.method, reading: reading)
    }

    /// Starts a ``CloseNotifyWatch`` on the connection; returns false, with the transfer's error set, when none can be
    /// had (libcurl's TLS is not OpenSSL): without it a cut body would pass for whole, so the call fails closed.
    private func watchForCloseNotify() -> Bool {
        if let easyHandle, let connection = ccurl_openssl_connection(easyHandle), let watch = CloseNotifyWatch.watch(connection) {
            closeNotifyWatch = watch
            return true
        }
        abortError = TransportError(
            .tlsFailure,
            message: "the response's body ends with its connection (it has neither Content-Length nor chunked coding), and this libcurl (\(CurlTransport.libcurlVersion)) gives no way to see the server's close_notify, without which a body cut short would pass for whole"
        )
        return false
    }

    /// The most trailer bytes a response may carry: libcurl's bound on a response's head, 300 KiB.
    static let maximumTrailerBytes = 300 * 1024

    /// Courier does not read trailer fields, but libcurl keeps every one it passes on (for its headers API) and,
    /// unlike a head, bounds neither their number nor their size. A server that sends them without end (after a
    /// chunked body's last chunk, at full speed) grew the client's memory by about 130 MB a second until the
    /// request's timeout, or without end when it had none. So a response whose trailers pass the head's bound
    /// fails as malformed, as one whose head does.
    private func acceptTrailer(_ count: Int) -> Bool {
        trailerBytes += count
        guard trailerBytes > Self.maximumTrailerBytes else { return true }
        abortError = TransportError(
            .malformedResponse,
            message: "the response's trailer fields are larger than \(Self.maximumTrailerBytes) bytes (the bound libcurl sets on a head)"
        )
        return false
    }

    /// Returns false to pause (the reader is behind).
    func onBodyBytes(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if !earlyBodyClosed, !machine.headDelivered, earlyBody.count + bytes.count <= options.responseBufferSize {
            earlyBody.append(contentsOf: bytes)
            received += Int64(bytes.count)
            loop.markDirty(self)
            return true
        }
        moveEarlyBodyToPipe()
        guard streamingPipe().append(ArraySlice(bytes.bindMemory(to: UInt8.self))) else {
            machine.callbackPaused(.receive)
            return false
        }
        received += Int64(bytes.count)
        loop.markDirty(self)
        return true
    }

    /// Hands the early bytes to the pipe, ahead of any later ones; the pipe takes a first chunk whatever
    /// its size, so nothing is refused here.
    private func moveEarlyBodyToPipe() {
        guard !earlyBodyClosed else { return }
        earlyBodyClosed = true
        if !earlyBody.isEmpty { _ = streamingPipe().append(ArraySlice(earlyBody)) }
        // Also when empty: the room reserved for a whole body must not stay for as long as the stream lasts.
        earlyBody = Data()
    }

    /// The pipe, made the first time the body streams. Loop thread only.
    private func streamingPipe() -> ResponseBodyPipe {
        if let responsePipe { return responsePipe }
        let pipe = ResponseBodyPipe(highWatermark: options.responseBufferSize)
        responsePipe = pipe
        return pipe
    }

    /// Fills curl's upload buffer; returns the byte count, or `nil` to pause, or -1 to abort.
    func onUploadRead(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        switch upload {
        case .none:
            return 0
        case .memory(let memoryUpload):
            let count = min(buffer.count, memoryUpload.count - memoryOffset)
            guard count > 0, let base = buffer.baseAddress else { return 0 }
            memoryUpload.withUnsafeBytes { source in
                if let from = source.baseAddress {
                    base.copyMemory(from: from.advanced(by: memoryOffset), byteCount: count)
                }
            }
            memoryOffset += count
            return count
        case .segments(let segmentUpload):
            switch segmentUpload.read(into: buffer) {
            case .success(let count): return count
            case .failure(let error): abortError = error; return -1
            }
        case .stream(let uploadPipe):
            switch uploadPipe.read(into: buffer) {
            case .bytes(let count):
                loop.markDirty(self)
                return count
            case .end:
                return 0
            case .pause:
                machine.callbackPaused(.send)
                return nil
            case .failed(let error):
                abortError = error
                return -1
            }
        }
    }

    /// Rewinds the upload to its start, when possible.
    func onSeekToStart() -> Bool {
        switch upload {
        case .none: return true
        case .memory: memoryOffset = 0; return true
        case .segments(let segments): segments.rewind(); return true
        case .stream(let pipe): return pipe.canRewind
        }
    }

    /// One piece of libcurl's verbose trace, for the configuration's diagnostics handler: text as text
    /// (without its line break), body and TLS bytes as a count only.
    func onDiagnostic(_ type: curl_infotype, _ bytes: UnsafeRawBufferPointer) {
        guard let handler = options.diagnostics else { return }
        let kind: TransportDiagnostic.Kind
        let text: String
        switch type {
        case CURLINFO_TEXT: (kind, text) = (.info, Self.line(bytes))
        case CURLINFO_HEADER_OUT: (kind, text) = (.headerOut, Self.line(bytes))
        case CURLINFO_HEADER_IN: (kind, text) = (.headerIn, Self.line(bytes))
        case CURLINFO_DATA_OUT: (kind, text) = (.dataOut, "\(bytes.count) bytes of body sent")
        case CURLINFO_DATA_IN: (kind, text) = (.dataIn, "\(bytes.count) bytes of body received")
        default: return   // TLS records: their bytes say nothing a reader of a log can use.
        }
        handler(TransportDiagnostic(kind: kind, text: text, taskID: context.task.id, sessionID: context.task.sessionID))
    }

    private static func line(_ bytes: UnsafeRawBufferPointer) -> String {
        var end = bytes.count
        while end > 0, bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D { end -= 1 }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[..<end]), as: UTF8.self)
    }

    func onProgress(uploaded: Int64) {
        if uploaded != uploadNow {
            uploadNow = uploaded
            loop.markDirty(self)
        }
    }
}

/// Where a request body comes from: one of these, never two.
enum RequestBodySource {
    /// No body.
    case none
    /// Bytes in memory, copied into curl's buffer.
    case memory(Data)
    /// A body of segments (a file, a multipart form) copied and read with `pread` straight into
    /// curl's buffer: no pump, no chunk arrays.
    case segments(UploadSegments)
    /// Any other body, pumped by a task into a pipe that curl reads.
    case stream(RequestBodyPipe)
}

extension CurlEasy {
    init(unsafeRaw raw: UnsafeMutableRawPointer) { self.raw = raw }
}
