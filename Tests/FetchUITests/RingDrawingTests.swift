import CGtk
import FetchViewModel
import Foundation
import Testing
@testable import FetchUI

/// Renders ring frames with cairo onto an image surface and checks pixels on the ring's circle.
@Suite(.serialized) @MainActor
struct RingDrawingTests {
    static let size = 240.0
    static let palette = RingPalette(accent: RGBAColor(hex: 0x3584e4), success: RGBAColor(hex: 0x26a269),
                                     error: RGBAColor(hex: 0xc01c28), foreground: RGBAColor(hex: 0x2e3436))
    static let white = RGBAColor(red: 1, green: 1, blue: 1)
    let geometry = RingGeometry(width: size, height: size)

    /// Draws `frame` on white, saves `artifacts/ui/ring-<name>.png`, returns its pixels.
    func render(_ frame: RingFrame, name: String) -> Pixels {
        let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(Self.size), Int32(Self.size))!
        defer { cairo_surface_destroy(surface) }
        let cr = cairo_create(surface)!
        cairo_set_source_rgb(cr, 1, 1, 1)
        cairo_paint(cr)
        RingDrawing.draw(cr, geometry: geometry, frame: frame, palette: Self.palette)
        cairo_destroy(cr)
        cairo_surface_write_to_png(surface, GtkHarness.artifacts.appendingPathComponent("ring-\(name).png").path)
        return Pixels(surface: surface)
    }

    /// The colour expected where the arc of `tone` covers the track.
    func arcColor(_ tone: RingFrame.Tone) -> RGBAColor {
        Self.palette.arc(for: tone).over(trackColor(tone))
    }

    func trackColor(_ tone: RingFrame.Tone = .running) -> RGBAColor { Self.palette.track(for: tone).over(Self.white) }

    /// Fractions of a turn to sample, clear of the round caps at both ends of an arc ending at `f`.
    func samples(coveredBy f: Double) -> (covered: [Double], uncovered: [Double]) {
        let cap = (geometry.lineWidth / 2 + 2) / (2 * .pi * geometry.radius)
        let all = stride(from: 0.01, to: 1.0, by: 0.02).map { $0 }
        return (all.filter { $0 > cap && $0 < f - cap }, all.filter { $0 > f + cap && $0 < 1 - cap })
    }

    func color(_ pixels: Pixels, atFraction f: Double) -> RGBAColor {
        let point = geometry.point(atFraction: f)
        return pixels[point.x, point.y]!
    }

    @Test(arguments: [0.0, 0.25, 0.5, 0.75])
    func arcCoversTheAnglesOfItsFraction(fraction: Double) {
        for tone in [RingFrame.Tone.running, .paused, .failed] {
            let pixels = render(RingFrame(tone: tone, fraction: fraction, label: "\(Int(fraction * 100))%"),
                                name: "\(tone)-\(Int(fraction * 100))")
            let (covered, uncovered) = samples(coveredBy: fraction)
            if fraction > 0 { #expect(!covered.isEmpty) }
            for f in covered {
                #expect(color(pixels, atFraction: f).isClose(to: arcColor(tone)), "\(tone) \(fraction): arc missing at \(f)")
            }
            for f in uncovered {
                #expect(color(pixels, atFraction: f).isClose(to: trackColor(tone)), "\(tone) \(fraction): arc found at \(f)")
            }
        }
    }

    @Test func failedUsesTheErrorColourNotTheAccent() {
        let running = render(RingFrame(tone: .running, fraction: 0.5), name: "compare-running")
        let failed = render(RingFrame(tone: .failed, fraction: 0.5), name: "compare-failed")
        let r = color(running, atFraction: 0.25), f = color(failed, atFraction: 0.25)
        #expect(!r.isClose(to: f, tolerance: 0.2))
        #expect(f.isClose(to: Self.palette.error))
        #expect(f.red > f.blue && f.red > f.green)
    }

    @Test func failedWithNothingDownloadedStillShowsTheErrorColour() {
        let failed = render(RingFrame(tone: .failed, fraction: 0, label: "0%"), name: "failed-empty")
        let paused = render(RingFrame(tone: .paused, fraction: 0, label: "0%"), name: "paused-empty")
        let f = color(failed, atFraction: 0.3), p = color(paused, atFraction: 0.3)
        #expect(f.red > f.green + 0.05 && f.red > f.blue + 0.05)
        #expect(!f.isClose(to: p, tolerance: 0.04))
    }

    /// Points along the checkmark's two strokes (midpoints and near the corner).
    var checkmarkSamples: [RingGeometry.Point] {
        let p = geometry.checkmark
        func lerp(_ a: RingGeometry.Point, _ b: RingGeometry.Point, _ t: Double) -> RingGeometry.Point {
            .init(x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t)
        }
        return [lerp(p[0], p[1], 0.5), lerp(p[1], p[2], 0.3), lerp(p[1], p[2], 0.7)]
    }

    @Test func checkmarkOnlyWhenDone() {
        let success = Self.palette.success
        for fraction in [0.25, 0.5, 0.75] {
            let running = render(RingFrame(tone: .running, fraction: fraction, label: "\(Int(fraction * 100))%"),
                                 name: "nocheck-\(Int(fraction * 100))")
            for point in checkmarkSamples {
                #expect(!running[point.x, point.y]!.isClose(to: success, tolerance: 0.15))
            }
        }
        let done = render(RingFrame(tone: .done, fraction: 1, checkmark: 1), name: "done")
        for point in checkmarkSamples {
            #expect(done[point.x, point.y]!.isClose(to: success), "checkmark missing at \(point)")
        }
        // The arc is closed all the way round, in the success colour.
        for f in stride(from: 0.0, to: 1.0, by: 0.05) {
            #expect(color(done, atFraction: f).isClose(to: arcColor(.done)))
        }
    }

    @Test func checkmarkDrawsProgressively() {
        let half = render(RingFrame(tone: .done, fraction: 1, checkmark: 0.3), name: "done-animating")
        let samples = checkmarkSamples
        #expect(half[samples[0].x, samples[0].y]!.isClose(to: Self.palette.success))
        #expect(!half[samples[2].x, samples[2].y]!.isClose(to: Self.palette.success, tolerance: 0.15))
    }

    @Test func percentageIsDrawnInTheMiddle() {
        let blank = render(RingFrame(tone: .running, fraction: 0.5), name: "nolabel")
        let labelled = render(RingFrame(tone: .running, fraction: 0.5, label: "50%"), name: "label")
        func darkPixels(_ pixels: Pixels) -> Int {
            var count = 0
            let c = geometry.center, r = geometry.radius * 0.5
            for y in stride(from: c.y - r, to: c.y + r, by: 1) {
                for x in stride(from: c.x - r, to: c.x + r, by: 1) where pixels[x, y]!.luminance < 0.5 { count += 1 }
            }
            return count
        }
        #expect(darkPixels(blank) == 0)
        #expect(darkPixels(labelled) > 100)
    }

    @Test func indeterminateArcStartsWhereTheSpinIs() {
        let pixels = render(RingFrame(tone: .running, fraction: 0.25, spinStart: 0.5), name: "spinning")
        #expect(color(pixels, atFraction: 0.625).isClose(to: arcColor(.running)))
        #expect(color(pixels, atFraction: 0.125).isClose(to: trackColor()))
    }
}
