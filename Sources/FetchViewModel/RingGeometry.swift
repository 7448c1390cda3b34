import Foundation

/// Where the ring and its checkmark go in a widget of a given size: a pure value, no GTK.
///
/// Angles are cairo's: radians, 0 at three o'clock, growing clockwise (y points down). The arc
/// starts at twelve o'clock (`startAngle`) and a fraction `f` covers `f` of a full turn clockwise.
public struct RingGeometry: Sendable, Equatable {
    /// A point in widget coordinates (logical pixels).
    public struct Point: Sendable, Equatable {
        public var x: Double
        public var y: Double
        public init(x: Double, y: Double) { self.x = x; self.y = y }
    }

    /// Twelve o'clock, in radians.
    public static let startAngle = -Double.pi / 2

    public let center: Point
    /// Radius of the stroke's middle line, logical pixels.
    public let radius: Double
    /// Stroke width, logical pixels, a whole number of device pixels.
    public let lineWidth: Double

    /// Fits the ring in `width`×`height` logical pixels drawn at `scale` device pixels each.
    public init(width: Double, height: Double, scale: Double = 1) {
        let side = max(0, min(width, height))
        let scale = max(scale, 1)
        let idealWidth = min(max(side * 0.07, 4), 18)
        lineWidth = (idealWidth * scale).rounded() / scale
        center = Point(x: width / 2, y: height / 2)
        // Half a stroke plus a pixel of air so antialiasing is never clipped.
        radius = max(0, side / 2 - lineWidth / 2 - 1)
    }

    /// The angle at which an arc covering `fraction` (clamped to 0…1) ends.
    public func angle(forFraction fraction: Double) -> Double {
        Self.startAngle + 2 * .pi * min(max(fraction, 0), 1)
    }

    /// The point on the stroke's middle line at `fraction` of a turn from twelve o'clock.
    public func point(atFraction fraction: Double, radiusOffset: Double = 0) -> Point {
        let angle = Self.startAngle + 2 * .pi * fraction
        let r = radius + radiusOffset
        return Point(x: center.x + r * cos(angle), y: center.y + r * sin(angle))
    }

    /// The checkmark's three points (short stroke down-right, long stroke up-right), inside the ring.
    public var checkmark: [Point] {
        let r = radius
        return [
            Point(x: center.x - 0.40 * r, y: center.y + 0.02 * r),
            Point(x: center.x - 0.12 * r, y: center.y + 0.30 * r),
            Point(x: center.x + 0.42 * r, y: center.y - 0.26 * r),
        ]
    }

    /// Stroke width of the checkmark, logical pixels.
    public var checkmarkWidth: Double { max(lineWidth * 1.25, 3) }

    /// The checkmark drawn up to `progress` (0…1) of its length, as a polyline.
    public func checkmark(upTo progress: Double) -> [Point] {
        let points = checkmark
        let lengths = zip(points, points.dropFirst()).map { hypot($1.x - $0.x, $1.y - $0.y) }
        var remaining = min(max(progress, 0), 1) * lengths.reduce(0, +)
        var result = [points[0]]
        for (index, length) in lengths.enumerated() where remaining > 0 {
            let from = points[index], to = points[index + 1]
            if remaining >= length {
                result.append(to)
                remaining -= length
            } else {
                let t = length > 0 ? remaining / length : 0
                result.append(Point(x: from.x + (to.x - from.x) * t, y: from.y + (to.y - from.y) * t))
                break
            }
        }
        return result
    }

    /// Font size of the percentage in the middle, logical pixels.
    public var labelFontSize: Double { max(10, radius * 0.34) }
}
