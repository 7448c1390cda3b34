// fetchplay-window: the window's program (`WindowMain`). `fetchplay` (Sources/fetchplay)
// starts it for every command line that is not a headless mode, so that those never load GTK
// or open a display. bench/'s probes are not in it: they are `fetchplay-bench-window`'s.
import WindowMain

WindowMain.run()
