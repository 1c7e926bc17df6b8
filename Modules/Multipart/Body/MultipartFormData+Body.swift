import CourierCore
import FoundationEssentials

extension MultipartFormData {
    /// The whole form as a body: exact known length; replayable unless a stream part is
    /// single-pass.
    ///
    /// A form of fields, data and files (no stream part, no throttle) is a body of
    /// ``CourierCore/Body/Segment``s, which a transport copies and reads straight into its send
    /// buffer; otherwise the parts are read in turn, throttled when ``throttle`` is set.
    public func makeBody() -> Body {
        makeBody(throttle: throttle)
    }

    /// The body, with `throttle` instead of the form's (writing to a file never waits).
    func makeBody(throttle: Throttle?) -> Body {
        let pieces = layout()
        let streams = pieces.compactMap { piece -> Body? in
            if case .stream(let body, _, _) = piece { return body }
            return nil
        }
        if streams.isEmpty, throttle == nil {
            return Body(segments: pieces.compactMap { piece in
                if case .segment(let segment) = piece { return segment }
                return nil
            })
        }
        let replayable = streams.allSatisfy { $0.iterationBehavior == .multiple }
        return Body(
            PieceSequence(pieces: pieces, throttle: throttle),
            length: .known(contentLength),
            iterationBehavior: replayable ? .multiple : .single,
            maximumReadSize: throttle?.packetSize
        )
    }

    /// The form in order: delimiters and headers merged into as few byte segments as possible,
    /// files as file segments, streams as they are.
    func layout() -> [Piece] {
        guard !parts.isEmpty else { return [] }
        var pieces: [Piece] = []
        var pending = Data()
        for (index, part) in parts.enumerated() {
            pending.append(delimiter(first: index == 0))
            pending.append(part.header)
            switch part.content {
            case .bytes(let data) where data.count > Self.inlineLimit:
                // A large part stays its own segment: merging would copy it for every body made.
                pieces.append(.segment(.bytes(pending)))
                pending = Data()
                pieces.append(.segment(.bytes(data)))
            case .bytes(let data):
                pending.append(data)
            case .file(let path, let length):
                pieces.append(.segment(.bytes(pending)))
                pending = Data()
                pieces.append(.segment(.file(path: path, offset: 0, length: length)))
            case .stream(let body, let length):
                pieces.append(.segment(.bytes(pending)))
                pending = Data()
                pieces.append(.stream(body, length: length, partName: part.name))
            }
        }
        pending.append(closing)
        pieces.append(.segment(.bytes(pending)))
        return pieces.filter { piece in
            if case .segment(.bytes(let data)) = piece { return !data.isEmpty }
            return true
        }
    }

    /// In-memory parts up to this size are merged with the delimiters around them; larger ones
    /// keep their own segment.
    static let inlineLimit = 64 * 1024

    /// One run of the laid-out form.
    enum Piece: Sendable {
        case segment(Body.Segment)
        case stream(Body, length: Int64, partName: String?)
    }
}
