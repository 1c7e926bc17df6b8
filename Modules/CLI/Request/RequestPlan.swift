import CourierCore
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
                return "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
            case .bearer(let token):
                return "Bearer " + token
            }
        }
    }

    /// The request head, query applied.
    var request: HTTPRequest
    /// The body, when there is one (always small: built from items).
    var body: [UInt8]?
    /// The credentials that made the `Authorization` field, if any.
    var authorization: Authorization?

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
    ///
    /// - Throws: ``CLIError`` for a malformed URL, an invalid header, invalid JSON in a `:=`
    ///   item, a shape conflict between items, or a file item.
    static func build(
        line: RequestLine,
        encoding: BodyEncoding?,
        authorization: Authorization?
    ) throws(CLIError) -> RequestPlan {
        let method = try line.method()
        let url = try line.target()
        let mode = encoding ?? .json

        var query = ParameterTree()
        var data = ParameterTree()
        var itemHeaders: [HTTPField] = []
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
                    throw CLIError("item \"\(item.argument)\": raw JSON (:=) needs JSON mode", hint: "drop --form, or send the value as text with =")
                }
                let value: Parameters
                do {
                    value = try JSONValueParser.parse(item.value)
                } catch {
                    throw CLIError("item \"\(item.argument)\": \(error)")
                }
                try data.insert(value, at: ItemName.parse(item.rawName, item: item.argument), item: item.argument)
            case .file:
                throw CLIError(
                    "item \"\(item.argument)\": file fields (name@path) need multipart support, which arrives with the multipart module",
                    hint: "escape the @ with a backslash (\\@) if it is part of a name"
                )
            }
        }

        var fields = HTTPFields()
        fields[.userAgent] = userAgent
        fields[.accept] = (encoding == .json || (encoding == nil && !data.isEmpty)) ? jsonAccept : "*/*"
        if let authorization { fields[.authorization] = authorization.headerValue }
        let overridden = Set(itemHeaders.map(\.name))
        fields = HTTPFields(fields.filter { !overridden.contains($0.name) })
        fields.append(contentsOf: itemHeaders)

        var request = HTTPRequest(method: method, url: url, headerFields: fields)
        do {
            if !query.isEmpty {
                let serializer = HTTPRequestSerializer(methodsEncodingParametersInURI: [method])
                request = try serializer.serialize(request, parameters: query.parameters(repeatedNamesAs: .set)).request
            }
            var body: [UInt8]?
            if !data.isEmpty {
                let serialized: SerializedRequest
                switch mode {
                case .json:
                    serialized = try JSONRequestSerializer(methodsEncodingParametersInURI: [])
                        .serialize(request, parameters: data.parameters(repeatedNamesAs: .array))
                case .form:
                    serialized = try HTTPRequestSerializer(methodsEncodingParametersInURI: [])
                        .serialize(request, parameters: data.parameters(repeatedNamesAs: .set))
                }
                request = serialized.request
                body = serialized.body?.bufferedBytes.map { Array($0) }
            }
            return RequestPlan(request: request, body: body, authorization: authorization)
        } catch {
            throw CLIError("cannot build the request: \(error)")
        }
    }
}

/// The version `courier` reports and sends in its `User-Agent`.
enum CourierVersion {
    static let string = "0.1.0"
}
