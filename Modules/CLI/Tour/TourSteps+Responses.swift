import CourierCore
import CourierRequestSerialization
import CourierResponseSerialization
import Foundation
import HTTPTypes

extension TourStep {
    /// AFNetworking's JSON response serializer, removing null values.
    static func jsonNulls(server: String) -> TourStep {
        TourStep(
            title: "JSON response without nulls",
            explanation: "CourierResponseSerialization validates the response (status 200-299, a JSON content type) and parses the body into a JSONValue. With removesKeysWithNullValues, as in AFNetworking, null members and null array elements are dropped while parsing. httpbin echoes the JSON it was sent.",
            command: #"courier --pretty \#(server)/anything keep=yes gone:=null list:='[1,null,2]'"#
        ) { context in
            let session = context.session { $0.requestSerializer = JSONRequestSerializer() }
            let task = try session.post("anything", parameters: ["keep": "yes", "gone": nil, "list": [1, nil, 2]])
            var serializer = JSONResponseSerializer()
            serializer.removesKeysWithNullValues = true
            let value = try await task.value(using: serializer)
            let echoed = value?["json"]
            context.say("→ POST /anything {\"gone\":null,\"keep\":\"yes\",\"list\":[1,null,2]}")
            context.say("← \(TourContext.status(try await task.response.head)), echoed json without nulls: \(echoed.map(Self.compact) ?? "none")")
            guard echoed == .object(["keep": "yes", "list": [1, 2]]) else {
                throw TourFailure("expected {\"keep\":\"yes\",\"list\":[1,2]}, got \(echoed.map(Self.compact) ?? "nothing")")
            }
            do {
                _ = try await context.session().get("status/404").value(using: JSONResponseSerializer())
                throw TourFailure("/status/404 passed validation")
            } catch let error as CourierError {
                guard let validation = error.underlyingError as? ResponseValidationError else { throw error }
                context.say("GET /status/404 fails validation as AFNetworking words it: \(validation)")
            }
        }
    }

    /// The image serializer: format and pixel size from the header bytes.
    static func image(server: String) -> TourStep {
        TourStep(
            title: "Image response",
            explanation: "ImageResponseSerializer accepts AFNetworking's image types and reads the format and pixel size from the header bytes alone (PNG, JPEG, GIF, BMP, TIFF, ICO; WebP when asked), without linking an image library. SVG and WebP are refused by default with AFNetworking's content-type error.",
            command: "courier --headers \(server)/image/png Accept:image/png"
        ) { context in
            let session = context.session()
            for path in ["image/png", "image/jpeg"] {
                let image = try await session.get(path, headers: [.accept: "image/*"]).value(using: ImageResponseSerializer())
                context.say("GET /\(path) → \(image.format), \(image.width)×\(image.height) pixels, \(image.data.count) bytes")
                guard image.width > 0, image.height > 0 else { throw TourFailure("no size read from /\(path)") }
            }
            do {
                _ = try await session.get("image/svg", headers: [.accept: "image/*"]).value(using: ImageResponseSerializer())
                throw TourFailure("/image/svg was accepted as an image")
            } catch let error as CourierError {
                context.say("GET /image/svg → refused: \(error.underlyingError)")
            }
        }
    }

    private static func compact(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .int(let number): return String(number)
        case .double(let number): return String(number)
        case .string(let text): return "\"\(text)\""
        case .array(let elements): return "[" + elements.map(compact).joined(separator: ",") + "]"
        case .object(let members):
            return "{" + members.keys.sorted().map { "\"\($0)\":\(compact(members[$0] ?? .null))" }.joined(separator: ",") + "}"
        }
    }
}
