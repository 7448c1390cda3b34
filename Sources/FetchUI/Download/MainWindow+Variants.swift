import FetchCore
import FetchViewModel

/// An HLS link with several variants: the window asks which one to save before it starts.
extension MainWindow {
    func installVariantChooser() {
        store?.chooseVariant = { [weak self] url, variants, done in
            guard let self else { return done(nil) }
            self.chooseVariant(url: url, variants: variants, done: done)
        }
    }

    private func chooseVariant(url: String, variants: [StreamVariant], done: @escaping @MainActor (StreamVariant?) -> Void) {
        let chooser = VariantChooser(over: widget, title: LinkTitle.of(url), variants: variants) { [weak self] chosen in
            self?.variantChooser = nil
            done(chosen)
        }
        variantChooser = chooser
        chooser.present()
    }
}
