import CourierCookies
import CourierCore
import CourierCurl
import CourierMultipart
import CourierSecurity
import Foundation
import HTTPTypes

/// Runs `courier [OPTIONS] [METHOD] URL [ITEM ...]`: checks the options, builds the request,
/// sends it through a ``CourierCore/Session`` on a ``CourierCurl/CurlTransport``, and writes the
/// response where the options say.
struct RequestRunner {
    let command: RequestCommand

    /// The exit status; errors are reported on stderr here.
    func run() async -> Int32 {
        do {
            return try await execute()
        } catch {
            CourierMain.report(error)
            return ExitStatus.code(for: error)
        }
    }

    private func execute() async throws -> Int32 {
        let line = try RequestLine.parse(command.arguments)
        let options = try checkedOptions()
        let authorization = try authorization()
        var plan = try RequestPlan.build(
            line: line,
            encoding: command.form ? .form : (command.json ? .json : (command.multipart ? .multipart : nil)),
            authorization: authorization,
            throttle: try throttle()
        )
        let sessionStore = try command.session.map { name throws(CLIError) in
            try SessionStore.locate(name: name, authority: plan.request.authority, environment: ProcessInfo.processInfo.environment)
        }
        // A session's saved authorization goes with the request unless this run names one, and only to its origin.
        let origin = SessionStore.origin(of: plan.request)
        if plan.request.headerFields[.authorization] == nil, let origin, let saved = try sessionStore?.savedAuthorization(for: origin) {
            plan.request.headerFields[.authorization] = saved
        }
        let downloading = command.download || command.output != nil
        if downloading, plan.request.headerFields[.acceptEncoding] == nil {
            // The file gets the bytes as the server stores them, so a later Range lines up.
            plan.request.headerFields[.acceptEncoding] = "identity"
        }
        if command.curl {
            // A failed write is reported by CourierMain's check of every successful run's output.
            Console.out(CurlCommand(plan: plan, options: options).commandLine + "\n")
            return ExitStatus.success
        }
        for (option, file) in [("--cacert", command.cacert), ("--proxy-cacert", command.proxyCacert)] {
            if let file, !FileManager.default.isReadableFile(atPath: file) {
                throw CLIError("cannot read the CA file \(file) (\(option))")
            }
        }
        let trust = command.trustOptions
        let policy = try trust.policy()
        let clientCertificate = try trust.clientCertificate()
        if let warning = trust.insecureWarning, !command.quiet { Console.errorLine(warning) }

        let metrics = MetricsRecorder()
        let uploadBar = plan.form.flatMap { form in
            form.isEmpty ? nil : ProgressPolicy.reporter(explicit: command.progress, length: .known(form.contentLength), bodyGoesToTerminal: false)
        }
        let jar = try sessionStore?.loadJar()
        let session = try makeSession(
            version: options.httpVersion, decompresses: !downloading, metrics: metrics,
            uploadProgress: uploadBar.map(UploadProgressListener.init),
            policy: policy, clientCertificate: clientCertificate, jar: jar
        )
        defer { session.invalidate(cancelingTasks: true) }
        // The session is kept once the exchange is over, whatever its status (the cookies of a 401 count too).
        func keepSession() throws(CLIError) {
            if let sessionStore, let jar {
                try sessionStore.save(jar: jar, authorization: plan.request.headerFields[.authorization], origin: origin)
            }
        }

        let status: Int32
        if downloading {
            status = try await DownloadRunner(command: command, session: session, plan: plan, version: options.httpVersion).run()
            try keepSession()
        } else {
            let response: Response
            do {
                response = try await session.send(plan.request, body: plan.uploadBody)
            } catch {
                uploadBar?.abandon()
                throw error
            }
            uploadBar?.finish()
            try keepSession()
            if command.headers {
                if !command.quiet {
                    let version = await headVersion(of: response, metrics: metrics, preference: options.httpVersion)
                    let head = HeadFormatter.format(response.head, version: version, terminal: Console.Stream.output.isTerminal)
                    Console.write(head, to: .output)
                    try Console.checkOutput()
                }
            } else if command.stream {
                try await StreamPrinter(pretty: command.pretty, quiet: command.quiet).print(response)
            } else {
                try await BodyPrinter(pretty: command.pretty, progress: command.progress, quiet: command.quiet)
                    .print(response)
            }
            status = ExitStatus.code(for: response.status)
        }
        if command.timing, !command.quiet, let measured = metrics.metrics {
            Console.write(TimingReport.format(measured), to: .error)
        }
        return status
    }

    /// The HTTP version for `--headers`' status line. A small body is read to its end so the
    /// transport's metrics tell the version ALPN chose; a big one is dropped unread and the
    /// version shows only when it was certain beforehand.
    private func headVersion(
        of response: Response,
        metrics: MetricsRecorder,
        preference: CurlTransport.Configuration.HTTPVersion
    ) async -> String? {
        if let known = HeadFormatter.knownVersion(scheme: response.request?.scheme, preference: preference) {
            return known
        }
        var seen = 0
        do {
            for try await chunk in response.body {
                seen += chunk.count
                if seen > 64 * 1024 { return nil }
            }
        } catch {
            return nil
        }
        return metrics.metrics?.httpVersion
    }

    /// The options that need checking together, as `--curl` prints them.
    private func checkedOptions() throws(CLIError) -> CurlCommand.Options {
        if [command.json, command.form, command.multipart].filter({ $0 }).count > 1 {
            throw CLIError("--json, --form and --multipart exclude each other")
        }
        if command.auth != nil && command.bearer != nil { throw CLIError("-a/--auth and --bearer exclude each other") }
        if command.resume && !(command.download || command.output != nil) {
            throw CLIError("-c/--continue resumes a file: use it with -d or -o FILE")
        }
        if command.headers && (command.download || command.output != nil) {
            throw CLIError("--headers prints the head instead of the body: it does not combine with -d or -o")
        }
        if command.stream && (command.headers || command.download || command.output != nil) {
            throw CLIError("--stream prints the body as it arrives: it does not combine with --headers, -d or -o")
        }
        if command.maxRedirects < 0 { throw CLIError("--max-redirects takes 0 or more") }
        for (name, value) in [("--timeout", command.timeout), ("--connect-timeout", command.connectTimeout)] {
            if let value, !(value > 0 && value.isFinite) { throw CLIError("\(name) takes a number of seconds above 0") }
        }
        if let proxy = command.proxy, !proxy.contains("://") {
            throw CLIError("--proxy takes a URL, e.g. http://127.0.0.1:3128")
        }
        var options = CurlCommand.Options()
        options.httpVersion = try command.httpVersion()
        options.maximumRedirects = command.maxRedirects
        options.timeout = command.timeout
        options.connectTimeout = command.connectTimeout
        options.proxy = command.proxy
        options.proxyCAFile = command.proxyCacert
        options.unixSocket = command.unixSocket
        options.caFile = command.cacert
        options.insecure = command.insecure
        options.clientCertificate = command.cert
        options.clientKey = command.key
        options.clientKeyPassword = command.pass
        options.pinnedKeys = command.pinKey
        options.verbose = command.verbose
        options.outputFile = command.output
        options.download = command.download
        options.resume = command.resume
        return options
    }

    /// `--throttle BYTES:SECONDS`, e.g. `16384:0.2` (AFNetworking's suggestion for 3G).
    private func throttle() throws(CLIError) -> Throttle? {
        guard let text = command.throttle else { return nil }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let bytes = Int(parts[0]), bytes > 0,
              let seconds = Double(parts[1]), seconds >= 0, seconds.isFinite else {
            throw CLIError("--throttle takes BYTES:SECONDS with BYTES above 0", hint: "e.g. --throttle 16384:0.2")
        }
        return Throttle(packetSize: bytes, delay: Self.duration(seconds))
    }

    private func authorization() throws(CLIError) -> RequestPlan.Authorization? {
        if let auth = command.auth { return try RequestPlan.Authorization.basic(auth) }
        return command.bearer.map { .bearer($0) }
    }

    private func makeSession(
        version: CurlTransport.Configuration.HTTPVersion,
        decompresses: Bool,
        metrics: MetricsRecorder,
        uploadProgress: UploadProgressListener?,
        policy: SecurityPolicy,
        clientCertificate: ClientCertificate?,
        jar: CookieJar?
    ) throws -> Session {
        var transport = CurlTransport.Configuration()
        transport.httpVersion = version
        transport.proxy = command.proxy
        transport.proxyCertificateAuthorityFile = command.proxyCacert
        transport.unixSocketPath = command.unixSocket
        transport.clientCertificate = clientCertificate
        transport.automaticDecompression = decompresses

        var configuration = SessionConfiguration()
        // No limit on the whole exchange unless asked: a big download may take its time.
        configuration.timeouts = Timeouts(
            connect: command.connectTimeout.map(Self.duration) ?? .seconds(30),
            request: command.timeout.map(Self.duration)
        )
        configuration.redirectPolicy = RedirectPolicy(maximumRedirects: command.maxRedirects)
        var listener: any EventListener = metrics
        if let uploadProgress { listener = listener + uploadProgress }
        if command.verbose && !command.quiet {
            listener = VerboseListener(version: version) + listener
        }
        configuration.eventListener = listener
        // Every https server is judged by the policy in the handshake (plain http has no handshake).
        configuration.trustEvaluator = policy
        // Every hop's cookies are stored and sent (a network interceptor sees each exchange).
        if let jar { configuration.networkInterceptors.append(CookieInterceptor(jar: jar)) }
        return Session(configuration: configuration, transport: try CurlTransport(configuration: transport))
    }

    /// Seconds as a `Duration`, to the millisecond.
    /// Values beyond a century are taken as a century (no overflow for `--timeout 1e300`).
    static func duration(_ seconds: Double) -> Duration {
        .milliseconds(Int64((min(seconds, 3_153_600_000) * 1000).rounded(.up)))
    }
}
