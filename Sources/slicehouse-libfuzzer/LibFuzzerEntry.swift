// SPDX-License-Identifier: Apache-2.0
// The libFuzzer driver of Slicehouse's fuzz targets (Sources/SlicehouseFuzz).
//
// Built for fuzzing by scripts/fuzz.sh:
//
//   swift build --scratch-path .build-libfuzzer -c release --product slicehouse-libfuzzer \
//       -Xswiftc -sanitize=fuzzer -Xswiftc -parse-as-library -Xswiftc -DSLICEHOUSE_LIBFUZZER
//
// and run as `SLICEHOUSE_FUZZ_TARGET=<target> SWIFT_BACKTRACE=enable=no slicehouse-libfuzzer
// [libFuzzer options] [corpus folders]` (the Swift runtime's backtracer would otherwise take
// the crash signal before libFuzzer saves the input). libFuzzer supplies `main` then, so
// this file defines one only in an ordinary build (no SLICEHOUSE_LIBFUZZER), where the
// program replays input files through a target: `slicehouse-libfuzzer TARGET FILE...`.

import Foundation
import SlicehouseFuzz

/// The target named by `SLICEHOUSE_FUZZ_TARGET`, looked up once.
private let selectedTarget: FuzzTarget? = {
    guard let name = ProcessInfo.processInfo.environment["SLICEHOUSE_FUZZ_TARGET"] else { return nil }
    return FuzzTargets.named(name)
}()

/// libFuzzer's one-time setup: check the target name (and exit with a message when it
/// is missing or unknown), and make its run-time seeds now rather than inside the first run.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(_ argc: UnsafeMutablePointer<Int32>?,
                             _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> Int32 {
    guard let target = selectedTarget else {
        let names = FuzzTargets.all.map(\.name).joined(separator: ", ")
        FileHandle.standardError.write(Data("slicehouse-libfuzzer: set SLICEHOUSE_FUZZ_TARGET to one of: \(names)\n".utf8))
        exit(2)
    }
    _ = target.builtInSeeds()
    return 0
}

/// libFuzzer's entry: run one input through the selected target.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let target = selectedTarget else { return 0 }
    target.run(UnsafeRawBufferPointer(start: data.map(UnsafeRawPointer.init), count: data == nil ? 0 : size))
    return 0
}

#if SLICEHOUSE_LIBFUZZER
/// libFuzzer's driver (from the fuzzer runtime that `-sanitize=fuzzer` links).
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<Int32>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32

/// The program's entry point. SwiftPM links executables with `main` defined as
/// `<module>_main` (so that tests can import them), so the runtime's own `main` cannot
/// be used; this one hands over to libFuzzer's driver.
@_cdecl("slicehouse_libfuzzer_main")
public func libFuzzerMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in fuzzerTestOneInput(data, size) }
}
#else
/// Without libFuzzer: `slicehouse-libfuzzer TARGET FILE...` runs each file once through
/// the target and prints its outcome (a crash reproduces as a crash).
@main
enum ReplayMain {
    static func main() {
        let args = Array(CommandLine.arguments.dropFirst())
        guard let name = args.first, let target = FuzzTargets.named(name) else {
            let names = FuzzTargets.all.map(\.name).joined(separator: ", ")
            FileHandle.standardError.write(Data("""
                usage: slicehouse-libfuzzer TARGET FILE...   (targets: \(names))
                (built with -sanitize=fuzzer and -DSLICEHOUSE_LIBFUZZER this is a libFuzzer binary; see scripts/fuzz.sh)

                """.utf8))
            exit(2)
        }
        for path in args.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path) else {
                FileHandle.standardError.write(Data("slicehouse-libfuzzer: cannot read \(path)\n".utf8))
                exit(2)
            }
            print("\(path): \(target.runReportingOutcome(Array(data)))")
        }
        FuzzScratch.removeAll()
    }
}
#endif
