import FetchCore
import FetchViewModel

/// A web page with several videos: the window asks which of them to save.
extension MainWindow {
    func installPageVideoChooser() {
        store?.choosePageVideos = { [weak self] finding, done in
            guard let self else { return done([]) }
            let chooser = PageVideoChooser(over: self.widget, finding: finding) { [weak self] chosen in
                self?.pageVideoChooser = nil
                done(chosen)
            }
            self.pageVideoChooser = chooser
            chooser.present()
        }
    }
}
