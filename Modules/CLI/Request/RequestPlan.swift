import CourierCore
import CourierMultipart
import CourierRequestSerialization
import Foundation
import HTTPTypes

/// The request a command line describes, built before anything is sent: what `--curl` prints
/// and what the session sends.
struct RequestPlan {
    /// How data items become a body.
    enum BodyEncoding: Sendable, Equatable {
        /// A JSON object (the default).
        case json
        /// `application/x-www-form-urlencoded` (`-f, --form`).
        case form
        /// `multipart/form-data` (`--multipart`, or any `name@path` item).
        case multipart
    }

    /// A file field of a multipart form, as `--curl` writes it.
    struct FileField: Equatable, Sendable {
        /// The field name.
        var name: String
        /// The file.
        var path: String
        /// The part's type, from the file's extension.
        var mimeType: String
    }

    /// Credentials from `-a`/`--bearer`.
    enum Authorization: Equatable, Sendable {
        /// `-a USER:PASS`: HTTP Basic (AFNetworking's `setAuthorizationHeaderFieldWithUsername:password:`).
        case basic(user: String, password: String)
        /// `--bearer TOKEN`.
        case bearer(String)

        /// Reads `USER:PASS`; the password may contain `:`, the user may not.
        static func basic(_ credentials: String) throws(CLIError) -> Authorization {
            guard let colon = credentials.firstIndex(of: ":") else {
                throw CLIError("-a/--auth takes USER:PASS", hint: "e.g. -a alice:secret")
            }
            return .basic(user: String(credentials[..<colon]), password: String(credentials[credentials.index(after: colon)...]))
        }

        /// The `Authorization` field value: `Basic base64(user:password)` or `Bearer token`.
        var headerValue: String {
            switch self {
            case .basic(let user, let password):
                return BasicCredentials.fieldValue(user: user, password: password)
            case .bearer(let token):
                return "Bearer " + token
            }
        }
    }

    /// The request head, query applied.
    var request: HTTPRequest
    /// The body, when there is one and it is small (JSON or a URL-encoded form, built from items).
    var body: [UInt8]?
    /// The multipart form, streamed from its files when sent.
    var form: MultipartFormData?
    /// The form's text fields, unescaped, for `--curl`.
    var formFields: [QueryPair] = []
    /// The form's file fields, for `--curl`.
    var formFiles: [FileField] = []
    /// The credentials that made the `Authorization` field, if any.
    var authorization: Authorization?

    /// What is sent: the form's stream, or the small body.
    var uploadBody: Body? {
        if let form { return form.isEmpty ? nil : form.makeBody() }
        return body.map { Body($0) }
    }

    /// The `User-Agent` courier sends unless told otherwise.
    static let userAgent = "courier/\(CourierVersion.string)"
    /// The `Accept` of a JSON request, as httpie sends it.
    static let jsonAccept = "application/json, */*;q=0.5"

    /// Builds the request for `line`.
    ///
    /// - Header items replace the default `User-Agent`, `Accept` and `Authorization` by name;
    ///   several items with one name all go out.
    /// - Query items are added to the URL's query by AFNetworking's rules
    ///   (``CourierRequestSerialization/HTTPRequestSerializer``), after any query the URL has.
    /// - Data items become a JSON object (``CourierRequestSerialization/JSONRequestSerializer``)
    ///   or a form (``CourierRequestSerialization/HTTPRequestSerializer``), for any method.
    /// - File items (or `--multipart`) make a multipart form (``CourierMultipart/MultipartFormData``):
    ///   data items first as text fields (named as in a URL-encoded form, unescaped), then the
    ///   files in the order given, each streamed from disk when sent.
    ///
    /// - Throws: ``CLIError`` for a malformed URL, an invalid header, invalid JSON in a `:=`
    ///   item, a shape conflict between items, an unreadable file, or a throttle without a form.
    static func build(
        line: RequestLine,
        encoding: BodyEncoding?,
        authorization: Authorization?,
        throttle: Throttle? = nil
    ) throws(CLIError) -> RequestPlan {
        let method = try line.method()
        let url = try line.target()
        // Credentials in the URL (`https://user:pass@host/`), percent-decoded, as curl uses them; -a or --bearer wins.
        let authorization = authorization ?? URLCredentials.userAndPassword(in: url).map { Authorization.basic(user: $0.user, password: $0.password) }
        let hasFiles = line.items.contains { $0.kind == .file }
        if hasFiles, let encoding, encoding != .multipart {
            throw CLIError(
                "file items (name@path) are sent as a multipart form: they do not combine with --\(encoding == .json ? "json" : "form")",
                hint: "drop the option, or escape the @ with a backslash (\\@) if it is part of a name"
            )
        }
        let mode = hasFiles ? .multipart : encoding ?? .json
        if throttle != nil, mode != .multipart {
            throw CLIError("--throttle slows multipart uploads: use it with name@path items or --multipart")
        }

        var query = ParameterTree()
        var data = ParameterTree()
        var itemHeaders: [HTTPField] = []
        var files: [FileField] = []
        for item in line.items {
            switch item.kind {
            case .header:
                do {
                    itemHeaders.append(try HTTPField.validated(name: item.name, value: item.value))
                } catch {
                    throw CLIError("header item \"\(item.argument)\": \(error)")
                }
            case .query:
                try query.insert(.string(item.value), at: ItemName.parse(item.rawName, item: item.argument), item: item.argument)
            case .data:
                try data.insert(.string(item.value), at: ItemName.parse(item.rawName, item: item.argument), item: item.argument)
            case .rawJSON:
                guard mode == .json else {
                    throw CLIError("item \"\(item.argument)\": raw JSON (:=) needs JSON mode", hint: "drop --form/--multipart and file items, or send the value as text with =")
                }
                let value: Parameters
                do {
                    value = try RawJSONValue.parse(item.value)
                } catch {
                    throw CLIError("item \"\(item.argument)\": \(error)")
                }
                try data.insert(value, at: ItemName.parse(item.rawName, item: item.argument), item: item.argument)
            case .file:
                files.append(FileField(name: item.name, path: item.value, mimeType: MIMETypes.system.type(forPath: item.value)))
            }
        }

        var fields = HTTPFields()
        fields[.userAgent] = userAgent
        fields[.accept] = (mode == .json && (encoding == .json || !data.isEmpty)) ? jsonAccept : "*/*"
        if let authorization { fields[.authorization] = authorization.headerValue }
        let overridden = Set(itemHeaders.map(\.name))
        fields = HTTPFields(fields.filter { !overridden.contains($0.name) })
        fields.append(contentsOf: itemHeaders)

        var request = HTTPRequest(method: method, url: url, headerFields: fields)
        do {
            if !query.isEmpty {
                let serializer = HTTPRequestSerializer(methodsEncodingParametersInURI: [method], defaultHeaderFields: [:])
                request = try serializer.serialize(request, parameters: query.parameters(repeatedNamesAs: .set)).request
            }
            if mode == .multipart {
                return try multipartPlan(request, data: data, files: files, throttle: throttle, authorization: authorization)
            }
            var body: [UInt8]?
            if !data.isEmpty {
                let serialized: SerializedRequest
                switch mode {
                case .json:
                    serialized = try JSONRequestSerializer(methodsEncodingParametersInURI: [], defaultHeaderFields: [:])
                        .serialize(request, parameters: data.parameters(repeatedNamesAs: .array))
                case .form, .multipart:
                    serialized = try HTTPRequestSerializer(methodsEncodingParametersInURI: [], defaultHeaderFields: [:])
                        .serialize(request, parameters: data.parameters(repeatedNamesAs: .set))
                }
                request = serialized.request
                body = serialized.body?.bufferedBytes.map { Array($0) }
            }
            return RequestPlan(request: request, body: body, authorization: authorization)
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError("cannot build the request: \(error)")
        }
    }

    /// The plan of a multipart request: text fields from the data items, then the files.
    private static func multipartPlan(
        _ request: HTTPRequest,
        data: ParameterTree,
        files: [FileField],
        throttle: Throttle?,
        authorization: Authorization?
    ) throws -> RequestPlan {
        var form = MultipartFormData()
        form.throttle = throttle
        var fields: [QueryPair] = []
        if !data.isEmpty {
            let parameters = data.parameters(repeatedNamesAs: .set)
            try form.appendParameters(parameters)
            fields = try QueryString.pairs(from: parameters)
        }
        for file in files {
            do {
                try form.appendFile(at: file.path, name: file.name, mimeType: file.mimeType)
            } catch {
                throw CLIError("cannot read the file of \(file.name)@\(file.path): \(error)")
            }
        }
        var plan = RequestPlan(request: request, body: nil, authorization: authorization)
        plan.formFields = fields
        plan.formFiles = files
        if !form.isEmpty {
            do {
                plan.request = try form.serialize(request).request
            } catch {
                throw CLIError("cannot send a form: \(error)", hint: "name the method, e.g. courier POST URL name@file")
            }
        }
        plan.form = form
        return plan
    }
}

/// The version `courier` reports and sends in its `User-Agent`.
enum CourierVersion {
    static let string = "0.1.0"
}
