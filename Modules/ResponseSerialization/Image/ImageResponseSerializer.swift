import CourierCore
import FoundationEssentials

/// AFNetworking's `AFImageResponseSerializer` for Linux: validates, then recognizes the image and
/// reads its pixel size from the header bytes, without decoding it (no image library is linked).
///
/// ```swift
/// let image = try await session.get("image/png").value(using: ImageResponseSerializer())
/// print(image.format, image.width, image.height)   // png 100 100
/// ```
///
/// Acceptable types are AFNetworking's: `image/tiff`, `image/jpeg`, `image/gif`, `image/png`,
/// `image/ico`, `image/x-icon`, `image/bmp`, `image/x-bmp`, `image/x-xbitmap`,
/// `image/x-win-bitmap`. WebP is an extension, off by default to keep AFNetworking's set: turn
/// on ``allowsWebP`` to accept `image/webp`. Bytes of no known format (or WebP while it is off)
/// are ``ResponseSerializationError/Reason/unrecognizedImage``.
public struct ImageResponseSerializer: ResponseSerializer {
    /// AFNetworking's acceptable types.
    public static let defaultContentTypes: Set<String> = [
        "image/tiff", "image/jpeg", "image/gif", "image/png", "image/ico", "image/x-icon",
        "image/bmp", "image/x-bmp", "image/x-xbitmap", "image/x-win-bitmap",
    ]

    /// Status codes and content types that pass.
    public var validator: ResponseValidator
    /// Accepts WebP (type `image/webp` and the format); off by default.
    public var allowsWebP: Bool {
        didSet {
            if allowsWebP { validator.acceptableContentTypes?.insert("image/webp") }
            else { validator.acceptableContentTypes?.remove("image/webp") }
        }
    }
    /// The largest body read.
    public var maximumBodySize: Int

    /// A serializer with AFNetworking's types.
    public init(
        validator: ResponseValidator = ResponseValidator(acceptableContentTypes: Self.defaultContentTypes),
        allowsWebP: Bool = false,
        maximumBodySize: Int = Self.defaultMaximumBodySize
    ) {
        self.validator = validator
        self.allowsWebP = allowsWebP
        self.maximumBodySize = maximumBodySize
        if allowsWebP { self.validator.acceptableContentTypes?.insert("image/webp") }
    }

    /// The image's format and size, with its bytes.
    public func serialize(_ response: DataResponse) throws -> ImageInfo {
        let allowsWebP = self.allowsWebP
        return try SerializationPipeline(validator: validator, maximumBodySize: maximumBodySize, preprocessor: nil)
            .run(response, refused: nil) { data throws(ResponseSerializationError) -> ImageInfo in
                guard let (format, width, height) = ImageHeaderReader(data).read() else {
                    throw ResponseSerializationError(.unrecognizedImage, detail: data.isEmpty ? "the body is empty" : "the bytes are not a PNG, JPEG, GIF, BMP, TIFF, ICO or WebP image, or their header is cut short")
                }
                guard format != .webp || allowsWebP else {
                    throw ResponseSerializationError(.unrecognizedImage, detail: "the image is WebP, which is off by default (AFNetworking's set); set allowsWebP to accept it")
                }
                return ImageInfo(format: format, width: width, height: height, data: data)
            }
    }
}
