import XCTest
@testable import DynamicsKit
// The shared test support (recorders, item builders), for every file of this target.
@_exported import DynamicsTestSupport

func XCTAssertClose(_ a: CGFloat, _ b: CGFloat, within tolerance: CGFloat, _ message: String = "", file: StaticString = #filePath, line: UInt = #line) {
    XCTAssert(abs(a - b) <= tolerance, "\(a) is not within \(tolerance) of \(b). \(message)", file: file, line: line)
}
