import FetchCore
import FetchViewModel

/// What the store asks of the window: which variant of a link or which of a page's videos to
/// save (a chooser over the window), and which file plays (never deleted nor evicted).
extension MainWindow: DownloadStoreHost {
    public func chooseVariant(url: String, variants: [StreamVariant],
                              done: @escaping @MainActor (StreamVariant?, _ audioOnly: Bool) -> Void) {
        let chooser = VariantChooser(over: widget, title: LinkTitle.of(url), variants: variants) { [weak self] chosen, audioOnly in
            self?.variantChooser = nil
            done(chosen, audioOnly)
        }
        variantChooser = chooser
        chooser.present()
    }

    public func choosePageVideos(_ finding: PageFinding, done: @escaping @MainActor ([Int], _ audioOnly: Bool) -> Void) {
        let chooser = PageVideoChooser(over: widget, finding: finding) { [weak self] chosen, audioOnly in
            self?.pageVideoChooser = nil
            done(chosen, audioOnly)
        }
        pageVideoChooser = chooser
        chooser.present()
    }

    public var playingPath: String? { playback.player?.path }
}
