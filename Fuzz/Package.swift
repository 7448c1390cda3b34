// swift-tools-version:6.0
// The fuzz targets: one libFuzzer program per parser that reads outside input, each linking only
// the engine (FetchCore), never GTK or GStreamer. Built by scripts/fuzz with libFuzzer and
// AddressSanitizer in its own build folder (.build/fuzz), so `swift build` of the app never
// sees them.
//
// Adding a target: Fuzz/Targets/NAME/NAME.swift (one `LLVMFuzzerTestOneInput`), its name in
// `targets` below, and seeds in Fuzz/Corpus/NAME/.
import PackageDescription

let targets = [
    "ResponseHead",
    "HLSPlaylist",
    "DASHManifest",
    "DownloadRecord",
    "Settings",
    "MP4Index",
    "MediaSniffer",
    "WebAddress",
    "CookieFile",
    "BrowserMessage",
    "WebPage",
    "SiteMedia",
]

let package = Package(
    name: "FetchplayFuzz",
    products: targets.map { .executable(name: "fuzz-\($0)", targets: [$0]) },
    dependencies: [.package(name: "Fetchplay", path: "..")],
    targets: targets.map {
        .executableTarget(name: $0, dependencies: [.product(name: "FetchCore", package: "Fetchplay")],
                          path: "Targets/\($0)",
                          // No main of its own: libFuzzer's calls `LLVMFuzzerTestOneInput`.
                          swiftSettings: [.unsafeFlags(["-parse-as-library"])])
    },
    swiftLanguageModes: [.v6]
)
