import FoundationEssentials

/// An image body with its format and pixel size, read from the header bytes alone (no decoding
/// library): what ``ImageResponseSerializer`` returns. Decode ``data`` with the image library of
/// your choice when you need pixels.
public struct ImageInfo: Sendable, Hashable {
    /// The formats Courier recognizes.
    public enum Format: String, Sendable, Hashable, CaseIterable {
        /// Portable Network Graphics.
        case png
        /// JPEG (JFIF or Exif).
        case jpeg
        /// GIF 87a or 89a.
        case gif
        /// Windows or OS/2 bitmap.
        case bmp
        /// TIFF, either byte order.
        case tiff
        /// Windows icon (the largest image in the file).
        case ico
        /// WebP (lossy, lossless or extended); recognized only when asked for.
        case webp
    }

    /// The format the bytes are in.
    public var format: Format
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// The image file's bytes.
    public var data: Data

    /// An image description.
    public init(format: Format, width: Int, height: Int, data: Data) {
        self.format = format
        self.width = width
        self.height = height
        self.data = data
    }
}
