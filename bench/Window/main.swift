// fetchplay-bench-window: the window's program (`WindowMain`) with bench/'s probes attached
// (`FetchBench`), each off unless its environment variable asks. Built for the benches, never
// installed: what ships is `fetchplay-window`, without them.
import FetchBench
import WindowMain

WindowMain.run { Benchmarks.install(on: $0) }
