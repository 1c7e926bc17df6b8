/// The types Courier knows without `/etc/mime.types`: the common web, document, media and
/// archive formats, with AFNetworking's answers where they differ from Debian's file.
enum BuiltInMIMETypes {
    static let table: [String: String] = [
        // Text and data
        "txt": "text/plain", "text": "text/plain", "log": "text/plain", "csv": "text/csv",
        "tsv": "text/tab-separated-values", "html": "text/html", "htm": "text/html",
        "css": "text/css", "js": "text/javascript", "mjs": "text/javascript", "md": "text/markdown",
        "xml": "application/xml", "json": "application/json", "yaml": "application/yaml",
        "yml": "application/yaml", "plist": "application/x-plist", "ics": "text/calendar",
        // Images
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif",
        "bmp": "image/bmp", "tif": "image/tiff", "tiff": "image/tiff", "ico": "image/x-icon",
        "webp": "image/webp", "svg": "image/svg+xml", "heic": "image/heic", "avif": "image/avif",
        // Audio and video
        "mp3": "audio/mpeg", "m4a": "audio/mp4", "wav": "audio/wav", "ogg": "audio/ogg",
        "flac": "audio/flac", "mp4": "video/mp4", "m4v": "video/mp4", "mov": "video/quicktime",
        "webm": "video/webm", "avi": "video/x-msvideo", "mkv": "video/x-matroska",
        // Documents
        "pdf": "application/pdf", "rtf": "application/rtf", "doc": "application/msword",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xls": "application/vnd.ms-excel",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "ppt": "application/vnd.ms-powerpoint",
        "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "odt": "application/vnd.oasis.opendocument.text", "epub": "application/epub+zip",
        // Archives
        "zip": "application/zip", "gz": "application/gzip", "tgz": "application/gzip",
        "bz2": "application/x-bzip2", "xz": "application/x-xz", "zst": "application/zstd",
        "tar": "application/x-tar", "7z": "application/x-7z-compressed",
        // Certificates and keys (AFNetworking's answers)
        "cer": "application/x-x509-ca-cert", "crt": "application/x-x509-ca-cert",
        "der": "application/x-x509-ca-cert", "pem": "application/x-pem-file",
        "p12": "application/x-pkcs12", "pfx": "application/x-pkcs12",
        // Fonts and binaries
        "woff": "font/woff", "woff2": "font/woff2", "ttf": "font/ttf", "otf": "font/otf",
        "wasm": "application/wasm", "bin": "application/octet-stream",
    ]
}
