import ArgumentParser
import Foundation

/// `dynamics play`: the live sandbox. The server lives in the `Sandbox` package beside this one (so that this
/// command and the library never build its web-server dependencies); this command builds it the first time and
/// runs it with the arguments given.
struct Play: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "A live sandbox in the browser: drag, flick and throw the items of a running simulation.",
        discussion: """
            Runs Sandbox's dynamics-play (building it with `swift build -c release` in Sandbox/ the first time, a \
            few minutes), which serves a page on http://127.0.0.1:8080/. `dynamics play --help` prints its options \
            (--port, --host, --record PREFIX, --resimulate LOG, --max-pages, --rate, --workers and more).
            """)

    @Argument(parsing: .captureForPassthrough, help: "A profile (default: sandbox) and dynamics-play's options.")
    var arguments: [String] = []

    /// The Sandbox package: beside the sources this command was built from.
    static var sandboxFolder: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sandbox")
    }

    func run() throws {
        let folder = Self.sandboxFolder
        guard FileManager.default.fileExists(atPath: folder.appendingPathComponent("Package.swift").path) else {
            throw CommandFailure("the sandbox package is not at \(folder.path); play needs the repository this command was built from")
        }
        let binary = folder.appendingPathComponent(".build/release/dynamics-play").path
        if !FileManager.default.isExecutableFile(atPath: binary) {
            FileHandle.standardError.write(Data("building the sandbox (Sandbox/, once; a few minutes)…\n".utf8))
            let status = try runProgram("/usr/bin/env", ["swift", "build", "-c", "release", "--package-path", folder.path, "--product", "dynamics-play"])
            guard status == 0 else { throw CommandFailure("building the sandbox failed (exit \(status)); see the messages above") }
        }
        let status = try runProgram(binary, arguments)
        if status != 0 { throw ExitCode(status) }
    }

    /// Runs a program with the terminal as its own, and returns its exit status.
    private func runProgram(_ path: String, _ args: [String]) throws -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = args
        // Ctrl-C reaches the child through the terminal's process group; this process waits for it to finish.
        signal(SIGINT, SIG_IGN)
        try p.run()
        p.waitUntilExit()
        signal(SIGINT, SIG_DFL)
        return p.terminationStatus
    }
}
