// swift-tools-version:6.0
// Fetchplay: download a video, watch it fill a ring, play it.
//
// Layers never reach up: FetchCore (downloads, cache) and FetchPlayer (playbin) import no GTK;
// FetchUI wires them to widgets; FetchCommandLine holds the options and the headless modes.
// Two programs: `fetchplay` runs the headless modes and links no GTK; for everything else it
// becomes `fetchplay-window` (exec), the window.
import PackageDescription

let package = Package(
    name: "Fetchplay",
    products: [
        .executable(name: "fetchplay", targets: ["fetchplay"]),
        .executable(name: "fetchplay-window", targets: ["fetchplay-window"]),
        // For the fuzz targets (Fuzz/Package.swift), which link the engine and nothing else.
        .library(name: "FetchCore", targets: ["FetchCore"]),
    ],
    targets: [
        // C libraries, each behind one module map and one shim header.
        .systemLibrary(name: "CGLib", pkgConfig: "gio-2.0",
                       providers: [.apt(["libglib2.0-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl",
                       providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CGtk", pkgConfig: "gtk4",
                       providers: [.apt(["libgtk-4-dev"])]),
        // GNOME's widgets over GTK (libadwaita 1.2 on Debian 12), for FetchUI only.
        .systemLibrary(name: "CAdwaita", pkgConfig: "libadwaita-1",
                       providers: [.apt(["libadwaita-1-dev"])]),
        .systemLibrary(name: "CPSL", pkgConfig: "libpsl",
                       providers: [.apt(["libpsl-dev"])]),
        .systemLibrary(name: "CLinux"),
        .systemLibrary(name: "CIntl"),
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto",
                       providers: [.apt(["libssl-dev"])]),
        // DASH manifests: libxml2's streaming reader, never with entity expansion or the network.
        .systemLibrary(name: "CXML2", pkgConfig: "libxml-2.0",
                       providers: [.apt(["libxml2-dev"])]),
        .systemLibrary(name: "CGStreamer", pkgConfig: "gstreamer-video-1.0 gstreamer-app-1.0 gstreamer-tag-1.0",
                       providers: [.apt(["libgstreamer1.0-dev", "libgstreamer-plugins-base1.0-dev"])]),

        .target(name: "ThreadKit"),
        .target(name: "GLibSupport", dependencies: ["CGLib", "ThreadKit"]),
        .target(name: "Localization", dependencies: ["CIntl"]),
        .target(name: "FetchCore", dependencies: ["CCurl", "CGLib", "CLinux", "CCrypto", "CPSL", "CXML2", "GLibSupport", "ThreadKit", "Localization"],
                exclude: ["README.md"]),
        // The player knows the engine's types (a download it plays, a presentation it remuxes);
        // the engine never knows GStreamer.
        .target(name: "FetchPlayer", dependencies: ["CGStreamer", "CGLib", "FetchCore", "GLibSupport", "Localization", "ThreadKit"]),
        // What each view shows (text, state, enablement), computed from the stores without GTK.
        .target(name: "FetchViewModel", dependencies: ["CGLib", "CLinux", "FetchCore", "GLibSupport", "Localization", "ThreadKit"],
                exclude: ["README.md"]),
        .target(name: "FetchUI", dependencies: ["CGtk", "CAdwaita", "CGLib", "CLinux", "GLibSupport", "FetchCore", "FetchPlayer", "FetchViewModel", "Localization", "ThreadKit"],
                exclude: ["README.md"]),
        // Benchmark probes (bench/), off unless their environment variables are set; outside the
        // product module, attached to it through its observers.
        .target(name: "FetchBench", dependencies: ["FetchUI", "FetchPlayer", "FetchCore", "CGtk", "GLibSupport"], path: "bench/Probes"),
        .target(name: "FetchCommandLine", dependencies: ["FetchCore", "FetchPlayer", "CGLib", "GLibSupport", "Localization", "ThreadKit"]),
        .executableTarget(name: "fetchplay", dependencies: ["FetchCommandLine", "CGLib", "GLibSupport", "Localization", "ThreadKit"]),
        // The window's program, shared by the one that ships and the one the benches run.
        .target(name: "WindowMain", dependencies: ["FetchUI", "FetchCommandLine", "FetchCore", "CGtk", "CGLib", "GLibSupport", "ThreadKit", "Localization"]),
        .executableTarget(name: "fetchplay-window", dependencies: ["WindowMain"]),
        .executableTarget(name: "fetchplay-bench-window", dependencies: ["WindowMain", "FetchBench"], path: "bench/Window"),

        // Test support: the fault-injecting HTTP server, nginx, clips and helpers.
        .target(name: "TestSupport", dependencies: ["CGLib", "ThreadKit"], path: "Tests/TestSupport"),
        // The thread kit and the GLib gate, each tested on its own.
        .testTarget(name: "ThreadKitTests", dependencies: ["ThreadKit", "TestSupport"]),
        .testTarget(name: "GLibSupportTests", dependencies: ["GLibSupport", "CGLib", "ThreadKit", "TestSupport"]),
        .testTarget(name: "FetchCoreTests", dependencies: ["FetchCore", "TestSupport", "ThreadKit"]),
        .testTarget(name: "FetchPlayerTests", dependencies: ["FetchPlayer", "TestSupport", "GLibSupport", "ThreadKit"]),
        .testTarget(name: "FetchViewModelTests", dependencies: ["FetchViewModel", "FetchCore", "ThreadKit"]),
        .testTarget(name: "FetchUITests", dependencies: ["FetchUI", "FetchCore", "FetchPlayer", "FetchViewModel", "TestSupport", "CGtk", "CAdwaita",
                                                  "ThreadKit"]),
        .testTarget(name: "CommandLineTests", dependencies: ["TestSupport"]),
        .testTarget(name: "TranslationTests", dependencies: ["FetchCore", "FetchPlayer", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
