import CourierCore
import CourierRequestSerialization
import Foundation
import HTTPTypes

extension TourStep {
    /// GET with query parameters, built by AFNetworking's rules.
    static func query(server: String) -> TourStep {
        TourStep(
            title: "Query parameters",
            explanation: "A GET whose parameters CourierRequestSerialization's HTTPRequestSerializer turns into a query string by AFNetworking's rules: keys sorted, arrays as key[], everything outside A-Z a-z 0-9 -._~/? percent-escaped. httpbin echoes the arguments it parsed.",
            command: "courier \(server)/get q=='swift http' page==2 tags[]==a tags[]==b"
        ) { context in
            let session = context.session { $0.requestSerializer = HTTPRequestSerializer() }
            let response = try await session.get("get", parameters: ["q": "swift http", "page": 2, "tags": ["a", "b"]]).response
            context.say("→ GET \(response.request.path ?? "")")
            let args = try TourContext.canonicalJSON(of: "args", in: response.data)
            context.say("← \(TourContext.status(response.head)), httpbin's args: \(args)")
            try TourContext.expect(args, equals: #"{"page":"2","q":"swift http","tags[]":["a","b"]}"#, "the echoed args")
        }
    }

    /// POST with a JSON body.
    static func json(server: String) -> TourStep {
        TourStep(
            title: "JSON body",
            explanation: "A POST whose parameters JSONRequestSerializer writes as compact JSON (Content-Type: application/json). On the command line, name=value sends a string, name:=json any JSON value, and brackets nest.",
            command: #"courier \#(server)/post name=Ada languages:='["swift","c"]' admin:=true address[city]=London"#
        ) { context in
            let session = context.session { $0.requestSerializer = JSONRequestSerializer() }
            let parameters: Parameters = ["name": "Ada", "languages": ["swift", "c"], "admin": true, "address": ["city": "London"]]
            let response = try await session.post("post", parameters: parameters).response
            context.say("→ POST \(response.request.path ?? "") with Content-Type: \(response.request.headerFields[.contentType] ?? "-")")
            let echoed = try TourContext.canonicalJSON(of: "json", in: response.data)
            context.say("← \(TourContext.status(response.head)), httpbin's json: \(echoed)")
            try TourContext.expect(echoed, equals: #"{"address":{"city":"London"},"admin":true,"languages":["swift","c"],"name":"Ada"}"#, "the echoed JSON")
        }
    }

    /// POST with a URL-encoded form.
    static func form(server: String) -> TourStep {
        TourStep(
            title: "Form body",
            explanation: "The same serializer as for queries, for a POST: HTTPRequestSerializer sends the parameters as an application/x-www-form-urlencoded body (-f on the command line).",
            command: "courier -f \(server)/post name=Ada tags[]=a tags[]=b"
        ) { context in
            let session = context.session { $0.requestSerializer = HTTPRequestSerializer() }
            let parameters: Parameters = ["name": "Ada", "tags": ["a", "b"]]
            let response = try await session.post("post", parameters: parameters).response
            context.say("→ POST \(response.request.path ?? "") with body \(try QueryString.encode(parameters))")
            let form = try TourContext.canonicalJSON(of: "form", in: response.data)
            context.say("← \(TourContext.status(response.head)), httpbin's form: \(form)")
            try TourContext.expect(form, equals: #"{"name":"Ada","tags[]":["a","b"]}"#, "the echoed form")
        }
    }
}
