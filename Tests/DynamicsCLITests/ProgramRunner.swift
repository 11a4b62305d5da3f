import Foundation

/// The `dynamics` built beside this test bundle (the test target depends on it).
let dynamicsBinary: String = {
    let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    return URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("dynamics").path
}()

/// Runs `arguments` (the first the program) in `directory` with `environment` added (and the cluster schedulers'
/// variables removed); returns the exit status, standard output and standard error.
func runProgram(_ arguments: [String], environment: [String: String] = [:], in directory: URL) throws -> (status: Int32, out: String, err: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: arguments[0])
    process.arguments = Array(arguments.dropFirst())
    process.currentDirectoryURL = directory
    var env = ProcessInfo.processInfo.environment
    for key in ["JOB_COMPLETION_INDEX", "JOB_COMPLETIONS", "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_STEP"] {
        env[key] = nil
    }
    env.merge(environment) { $1 }
    process.environment = env
    let outFile = directory.appendingPathComponent("stdout-\(UUID().uuidString)"), errFile = directory.appendingPathComponent("stderr-\(UUID().uuidString)")
    _ = FileManager.default.createFile(atPath: outFile.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errFile.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: outFile); try? FileManager.default.removeItem(at: errFile) }
    process.standardOutput = try FileHandle(forWritingTo: outFile)
    process.standardError = try FileHandle(forWritingTo: errFile)
    try process.run()
    process.waitUntilExit()
    return (process.terminationStatus, try String(contentsOf: outFile, encoding: .utf8), try String(contentsOf: errFile, encoding: .utf8))
}
