import DynamicsKit

/// Text forms of a recording: CSV and JSON lines (both with a header describing the columns) and an SVG snapshot.
extension Recording {
    /// One row per record, the kind of record in the first column (so a table library can split them): each
    /// frame's awake count, every item of every frame with its name, velocities and whether it is awake, the
    /// attachments, snap targets, contacts begun and ended (with what touched what) and boundary changes. Lines
    /// starting with `#` describe the recording and the columns.
    public func csv() -> String {
        var out = "# DynamicsKit recording: \(title)\n"
        out += "# step \(numberText(stepTime)) s, a frame every \(every) step(s), \(frameCount) frames, \(items.count) items\n"
        out += "# view box: x \(numberText(viewBox.minX)) y \(numberText(viewBox.minY)) width \(numberText(viewBox.width)) height \(numberText(viewBox.height)) (points, y down)\n"
        for (k, item) in items.enumerated() {
            out += "# item \(k): \(csvField(item.name)) \(numberText(item.width))x\(numberText(item.height)) \(item.ellipse ? "ellipse" : "rectangle") \(item.color)\n"
        }
        out += "# columns: record (frame | item | joint | snap | contact | ended | boundary | size), frame, time (s), index"
        out += " (item, joint, snap or boundary segment number), name (item), x, y (points), angle (item: radians, clockwise"
        out += " on screen), vx, vy (item: points/s), spin (item: radians/s), awake (item: 1 or 0; frame: the awake items),"
        out += " x2, y2 (points: the other end of a joint or boundary segment, the snap point), first, second (contact and"
        out += " ended: the items' numbers, second empty for a boundary), boundary (contact and ended: the boundary's"
        out += " identifier); a contact row is where a contact began, an ended row a contact that ended; a size record gives"
        out += " an item's new width and height as x and y, from that frame on\n"
        out += "record,frame,time,index,name,x,y,angle,vx,vy,spin,awake,x2,y2,first,second,boundary\n"
        let n = items.count
        let names = items.map { csvField($0.name) }
        var change = 0, sizeChange = 0
        for f in 0..<frameCount {
            let t = numberText(times[f])
            out += "frame,\(f),\(t),,,,,,,,,\(awake[f]),,,,,\n"
            while change < boundaryChanges.count && boundaryChanges[change].frame == f {
                var segment = 0
                for line in boundaryChanges[change].outlines {
                    for (p, q) in zip(line, line.dropFirst()) {
                        out += "boundary,\(f),\(t),\(segment),,\(numberText(p.x)),\(numberText(p.y)),,,,,,\(numberText(q.x)),\(numberText(q.y)),,,\n"
                        segment += 1
                    }
                }
                change += 1
            }
            while sizeChange < sizeChanges.count && sizeChanges[sizeChange].frame == f {
                let c = sizeChanges[sizeChange]
                out += "size,\(f),\(t),\(c.item),\(names[c.item]),\(numberText(c.width)),\(numberText(c.height)),,,,,,,,,,\n"
                sizeChange += 1
            }
            for i in 0..<n {
                let s = (f * n + i) * 3
                out += "item,\(f),\(t),\(i),\(names[i]),\(states[s]),\(states[s + 1]),\(states[s + 2]),"
                out += "\(velocities[s]),\(velocities[s + 1]),\(velocities[s + 2]),\(itemAwake[f * n + i]),,,,,\n"
            }
            /// Joints and snaps: (x1, y1, x2, y2) per record.
            func segments(_ record: String, _ a: [Float]) {
                for (j, k) in stride(from: 0, to: a.count, by: 4).enumerated() {
                    out += "\(record),\(f),\(t),\(j),,\(a[k]),\(a[k + 1]),,,,,,\(a[k + 2]),\(a[k + 3]),,,\n"
                }
            }
            segments("joint", joints[f])
            segments("snap", snaps[f])
            for c in contactEvents[f] {
                let point = c.began ? "\(c.x),\(c.y)" : ","
                let second = c.second >= 0 ? "\(c.second)" : ""
                out += "\(c.began ? "contact" : "ended"),\(f),\(t),,,\(point),,,,,,,,\(c.first),\(second),\(csvField(c.boundary ?? ""))\n"
            }
        }
        return out
    }

    /// A header line (the recording, its items and the meaning of each frame field), then one JSON object per frame.
    public func jsonLines() -> String {
        var out = header()
        let n = items.count
        var change = 0, sizeChange = 0
        for f in 0..<frameCount {
            out += "{\"frame\":\(f),\"time\":\(numberText(times[f])),\"items\":["
            out += states[(f * n * 3)..<((f + 1) * n * 3)].map { "\($0)" }.joined(separator: ",")
            out += "],\"joints\":[\(joints[f].map { "\($0)" }.joined(separator: ","))]"
            out += ",\"snaps\":[\(snaps[f].map { "\($0)" }.joined(separator: ","))]"
            out += ",\"contacts\":[\(contacts[f].map { "\($0)" }.joined(separator: ","))],\"awake\":\(awake[f])"
            out += ",\"velocities\":[" + velocities[(f * n * 3)..<((f + 1) * n * 3)].map { "\($0)" }.joined(separator: ",") + "]"
            out += ",\"itemAwake\":[" + itemAwake[(f * n)..<((f + 1) * n)].map { "\($0)" }.joined(separator: ",") + "]"
            out += ",\"contactEvents\":[" + contactEvents[f].map { c in
                "{\"began\":\(c.began),\"first\":\(c.first),\"second\":\(c.second)"
                    + (c.boundary.map { ",\"boundary\":" + jsonString($0) } ?? "")
                    + (c.began ? ",\"x\":\(c.x),\"y\":\(c.y)" : "") + "}"
            }.joined(separator: ",") + "]"
            if change < boundaryChanges.count && boundaryChanges[change].frame == f {
                out += ",\"boundaries\":[" + boundaryChanges[change].outlines.map { line in
                    "[" + line.map { "\(numberText($0.x)),\(numberText($0.y))" }.joined(separator: ",") + "]"
                }.joined(separator: ",") + "]"
                change += 1
            }
            var sizes: [String] = []
            while sizeChange < sizeChanges.count && sizeChanges[sizeChange].frame == f {
                let c = sizeChanges[sizeChange]
                sizes.append("\(c.item),\(numberText(c.width)),\(numberText(c.height))")
                sizeChange += 1
            }
            if !sizes.isEmpty { out += ",\"sizes\":[" + sizes.joined(separator: ",") + "]" }
            out += "}\n"
        }
        return out
    }

    /// The scene at `time` seconds (the last frame at or before it) as a standalone SVG image.
    public func svg(at time: Double) -> String {
        let f = frame(at: time), n = items.count
        let v = viewBox
        let sizes = self.sizes(atFrame: f)
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"\(numberText(v.minX)) \(numberText(v.minY)) \(numberText(v.width)) \(numberText(v.height))\""
        out += " width=\"\(numberText(min(v.width, 1200)))\" height=\"\(numberText(min(v.width, 1200) * v.height / v.width))\">\n"
        out += "<title>\(xml(title)) at t = \(String(format: "%.2f", times.isEmpty ? 0 : times[f])) s</title>\n"
        out += "<rect x=\"\(numberText(v.minX))\" y=\"\(numberText(v.minY))\" width=\"\(numberText(v.width))\" height=\"\(numberText(v.height))\" fill=\"#fbfbf8\"/>\n"
        let stroke = max(v.width, v.height) / 400
        for line in boundaries(atFrame: f) {
            out += "<polyline points=\"\(line.map { "\(numberText($0.x)),\(numberText($0.y))" }.joined(separator: " "))\" fill=\"none\" stroke=\"#555\" stroke-width=\"\(numberText(stroke * 2))\"/>\n"
        }
        let time = "t = \(String(format: "%.2f", times.isEmpty ? 0 : times[f])) s"
        let label = "<text x=\"\(numberText(v.minX + stroke * 6))\" y=\"\(numberText(v.minY + stroke * 16))\" font-family=\"sans-serif\" font-size=\"\(numberText(stroke * 12))\" fill=\"#444\">\(time)</text>\n"
        guard f < frameCount else { return out + label + "</svg>\n" }
        for i in 0..<n {
            let s = (f * n + i) * 3, item = items[i], (w, h) = sizes[i]
            let x = Double(states[s]), y = Double(states[s + 1]), deg = Double(states[s + 2]) * 180 / .pi
            let shape = item.ellipse
                ? "<ellipse cx=\"\(numberText(x))\" cy=\"\(numberText(y))\" rx=\"\(numberText(w / 2))\" ry=\"\(numberText(h / 2))\""
                : "<rect x=\"\(numberText(x - w / 2))\" y=\"\(numberText(y - h / 2))\" width=\"\(numberText(w))\" height=\"\(numberText(h))\""
            out += "\(shape) transform=\"rotate(\(numberText(deg)) \(numberText(x)) \(numberText(y)))\" fill=\"\(xml(item.color))\" stroke=\"#222\" stroke-width=\"\(numberText(stroke / 2))\"><title>\(xml(item.name))</title></\(item.ellipse ? "ellipse" : "rect")>\n"
        }
        for k in stride(from: 0, to: joints[f].count, by: 4) {
            let a = joints[f]
            out += "<line x1=\"\(a[k])\" y1=\"\(a[k + 1])\" x2=\"\(a[k + 2])\" y2=\"\(a[k + 3])\" stroke=\"#2a6\" stroke-width=\"\(numberText(stroke))\"/>\n"
        }
        for k in stride(from: 0, to: snaps[f].count, by: 4) {
            let a = snaps[f]
            out += "<line x1=\"\(a[k])\" y1=\"\(a[k + 1])\" x2=\"\(a[k + 2])\" y2=\"\(a[k + 3])\" stroke=\"#a3a\" stroke-dasharray=\"\(numberText(stroke * 3))\" stroke-width=\"\(numberText(stroke))\"/>\n"
            out += "<circle cx=\"\(a[k + 2])\" cy=\"\(a[k + 3])\" r=\"\(numberText(stroke * 4))\" fill=\"none\" stroke=\"#a3a\" stroke-width=\"\(numberText(stroke))\"/>\n"
        }
        return out + label + "</svg>\n"
    }
}

/// The header line of a JSON-lines recording: the recording, its items and the meaning of each frame field.
private struct RecordingHeader: Encodable {
    struct Item: Encodable { let name: String, width: Double, height: Double, shape: String, color: String }
    let format = "dynamics-recording"
    let version = 1
    let title: String
    let viewBox: [Double]
    let stepTime: Double
    let every: Int
    let frames: Int
    let items: [Item]
    let fields = [
        "frame": "frame number", "time": "seconds",
        "items": "x, y (points), angle (radians, clockwise on screen) of each item in turn",
        "joints": "x1, y1, x2, y2 per attachment (item end, other end)",
        "snaps": "x1, y1 (item), x2, y2 (snap point) per snap",
        "contacts": "x, y of each contact begun since the previous frame", "awake": "awake items",
        "velocities": "vx, vy (points/s), spin (radians/s) of each item in turn",
        "itemAwake": "1 for each item awake, 0 for one at rest, in turn",
        "contactEvents": "each contact begun or ended since the previous frame: began, first and second item (−1: a boundary), boundary identifier, x, y where it began",
        "boundaries": "present when the boundaries change: polylines of x, y",
        "sizes": "present when an item's bounds change: item, width, height of each",
    ]
}

extension Recording {
    /// The JSON-lines header, one line (keys sorted, so the same recording always gives the same bytes).
    func header() -> String {
        let header = RecordingHeader(
            title: title, viewBox: [viewBox.minX, viewBox.minY, viewBox.width, viewBox.height].map { Double($0) },
            stepTime: stepTime, every: every, frames: frameCount,
            items: items.map { .init(name: $0.name, width: Double($0.width), height: Double($0.height),
                                     shape: $0.ellipse ? "ellipse" : "rectangle", color: $0.color) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding plain strings and finite numbers cannot fail.
        return String(decoding: try! encoder.encode(header), as: UTF8.self) + "\n"
    }
}

/// Shortest round-tripping text of a number (integers without ".0"), for CSV and JSON alike.
public func numberText(_ v: Double) -> String {
    if v == v.rounded() && abs(v) < 1e15 { return String(Int64(v)) }
    return "\(v)"
}
func numberText(_ v: CGFloat) -> String { numberText(Double(v)) }

/// `s` as a JSON string literal (with `<` escaped, so it can sit inside an HTML script element).
public func jsonString(_ s: String) -> String {
    var out = "\""
    for u in s.unicodeScalars {
        switch u {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        case "<": out += "\\u003c"   // keeps "</script>" out of an embedded page
        default:
            if u.value < 0x20 { out += String(format: "\\u%04x", u.value) } else { out.unicodeScalars.append(u) }
        }
    }
    return out + "\""
}

/// `s` as a CSV field: quoted (quotes doubled) when it holds a comma, a quote or a line break.
public func csvField(_ s: String) -> String {
    s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" }) ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
}

/// `s` with `&`, `<`, `>` and `"` escaped, for HTML and SVG text and attributes.
public func xml(_ s: String) -> String {
    s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
        .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
}
