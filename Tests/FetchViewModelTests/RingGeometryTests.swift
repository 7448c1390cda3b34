import Foundation
import Testing
@testable import FetchViewModel

@Suite struct RingGeometryTests {
    @Test func fitsTheSmallerSideCentred() {
        let geometry = RingGeometry(width: 300, height: 200)
        #expect(geometry.center == .init(x: 150, y: 100))
        #expect(geometry.radius + geometry.lineWidth / 2 <= 100)
        #expect(geometry.radius > 80)
    }

    @Test(arguments: [1.0, 1.5, 2.0, 3.0])
    func lineWidthIsWholeDevicePixels(scale: Double) {
        let width = RingGeometry(width: 237, height: 237, scale: scale).lineWidth * scale
        #expect(width == width.rounded())
    }

    /// (fraction, expected angle in quarter turns from three o'clock)
    static let angles: [(Double, Double)] = [(0, -1), (0.25, 0), (0.5, 1), (0.75, 2), (1, 3), (-0.5, -1), (2, 3)]

    @Test(arguments: angles)
    func arcRunsClockwiseFromTwelve(fraction: Double, quarters: Double) {
        let angle = RingGeometry(width: 100, height: 100).angle(forFraction: fraction)
        #expect(abs(angle - quarters * Double.pi / 2) < 1e-9)
    }

    @Test func pointsGoRoundClockwise() {
        let g = RingGeometry(width: 200, height: 200)
        let top = g.point(atFraction: 0), right = g.point(atFraction: 0.25)
        let bottom = g.point(atFraction: 0.5), left = g.point(atFraction: 0.75)
        #expect(abs(top.x - 100) < 1e-9 && top.y < 100)      // twelve o'clock
        #expect(right.x > 100 && abs(right.y - 100) < 1e-9)  // three (y points down)
        #expect(abs(bottom.x - 100) < 1e-9 && bottom.y > 100)
        #expect(left.x < 100 && abs(left.y - 100) < 1e-9)
    }

    @Test func checkmarkSitsInsideTheRingAndGrows() {
        let g = RingGeometry(width: 200, height: 200)
        for point in g.checkmark {
            #expect(hypot(point.x - g.center.x, point.y - g.center.y) < g.radius - g.lineWidth)
        }
        #expect(g.checkmark(upTo: 0).count == 1)
        #expect(g.checkmark(upTo: 1) == g.checkmark)
        let half = g.checkmark(upTo: 0.5)
        #expect(half.count == 3 || half.count == 2)
        #expect(half.last != g.checkmark.last)
    }
}
