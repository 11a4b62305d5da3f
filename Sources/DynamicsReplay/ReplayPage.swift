import DynamicsKit

/// The HTML replay: one self-contained file (no network) that plays one or more recordings on a canvas fitted to
/// the window, with each recording's summary and outcome, a legend, play/pause, a time scrubber, speed control
/// and a frame counter. Item states are embedded as base64 float32
/// arrays, so thousands of items load and play without one JSON object per item per frame.
///
/// The address's fragment sets the start: `#rec=1&t=2.5&paused` shows recording 1 at 2.5 s, paused. With `probe`
/// in it, the page writes what it drew (frame, non-background pixels, a checksum, the milliseconds the drawing
/// took; with `bench` also the mean of drawing the next 30 frames) into the `#probe` element,
/// which a headless browser can read back.
public enum ReplayPage {
    public static func html(_ recordings: [Recording], title: String) -> String {
        var data = "{\"title\":\(jsonString(title)),\"recordings\":["
        data += recordings.map(json).joined(separator: ",")
        data += "]}"
        return template
            .replacingOccurrences(of: "@TITLE@", with: xml(title))
            .replacingOccurrences(of: "@DATA@", with: data)
            .replacingOccurrences(of: "@DRAWING@", with: drawingScript)
            .replacingOccurrences(of: "@LEGEND@", with: legendHTML)
    }

    static func json(_ r: Recording) -> String {
        func floats(_ a: [Float]) -> String { "[" + a.map { "\($0)" }.joined(separator: ",") + "]" }
        // Float32, little-endian, as JavaScript's Float32Array reads it on every platform in use.
        let bytes = r.states.withUnsafeBufferPointer { Data(buffer: $0) }
        var s = "{\"title\":\(jsonString(r.title)),\"summary\":\(jsonString(r.summary)),\"outcome\":\(jsonString(r.outcome)),"
        s += "\"screen\":\(r.viewBoxIsReferenceBounds),"
        s += "\"viewBox\":[\(numberText(r.viewBox.minX)),\(numberText(r.viewBox.minY)),\(numberText(r.viewBox.width)),\(numberText(r.viewBox.height))],"
        s += "\"items\":[" + r.items.map { "[\(jsonString($0.name)),\(numberText($0.width)),\(numberText($0.height)),\($0.ellipse ? 1 : 0),\(jsonString($0.color))]" }.joined(separator: ",") + "],"
        s += "\"times\":[" + r.times.map { numberText($0) }.joined(separator: ",") + "],"
        s += "\"states\":\"\(bytes.base64EncodedString())\","
        s += "\"joints\":[" + r.joints.map(floats).joined(separator: ",") + "],"
        s += "\"snaps\":[" + r.snaps.map(floats).joined(separator: ",") + "],"
        s += "\"contacts\":[" + r.contacts.map(floats).joined(separator: ",") + "],"
        s += "\"awake\":[" + r.awake.map(String.init).joined(separator: ",") + "],"
        s += "\"sizes\":[" + r.sizeChanges.map { "[\($0.frame),\($0.item),\(numberText($0.width)),\(numberText($0.height))]" }.joined(separator: ",") + "],"
        s += "\"boundaries\":[" + r.boundaryChanges.map { change in
            "[\(change.frame),[" + change.outlines.map { line in
                "[" + line.map { "\(numberText($0.x)),\(numberText($0.y))" }.joined(separator: ",") + "]"
            }.joined(separator: ",") + "]]"
        }.joined(separator: ",") + "]}"
        return s
    }


    /// The drawing code the replay page and the live sandbox (`dynamics-play`) share: `drawScene(ctx, canvas,
    /// scene, frame)` draws one frame of a scene on a canvas, and `viewOf(scene, canvas)` gives the mapping from
    /// points to canvas pixels it used (the sandbox maps the pointer back with it).
    ///
    /// `scene` has `viewBox` ([x, y, width, height]), `screen` (draw the reference bounds), `items` ([name, width,
    /// height, ellipse (0/1), color] each) and `rgb` (each item's color as [r, g, b], from `rgbOf`). `frame` has
    /// `states` (a Float32Array of x, y, angle per item) from `base`, `outlines` (boundary polylines), `sizes` (a
    /// Map from item to [width, height] for items whose bounds changed), `joints` and `snaps` (4 numbers per line)
    /// and `contacts` (arrays of x, y pairs, newest first, drawn fading).
    public static let drawingScript = #"""
// The view shows a margin around the reference bounds, so an item thrown off screen is seen leaving.
const MARGIN = 0.08;
function rgbOf(css) {
  const m = /^#([0-9a-f]{6})$/i.exec(css);
  return m ? [0, 2, 4].map(k => parseInt(m[1].slice(k, k + 2), 16)) : [60, 60, 60];
}
function viewOf(scene, canvas) {
  const [bx, by, bw, bh] = scene.viewBox;
  const vx = bx - MARGIN * bw, vy = by - MARGIN * bh, vw = bw * (1 + 2 * MARGIN), vh = bh * (1 + 2 * MARGIN);
  return { vx, vy, vw, vh, s: Math.min(canvas.width / vw, canvas.height / vh) };
}
function drawScene(ctx, canvas, r, fr) {
  const n = r.items.length, [bx, by, bw, bh] = r.viewBox, { vx, vy, s } = viewOf(r, canvas);
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.fillStyle = "#fbfbf8"; ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.setTransform(s, 0, 0, s, -vx * s, -vy * s);
  const px = 1 / s;
  // The reference bounds: the screen the items move on.
  if (r.screen) {
    ctx.strokeStyle = "#bbb"; ctx.lineWidth = px; ctx.setLineDash([4 * px, 3 * px]);
    ctx.strokeRect(bx, by, bw, bh); ctx.setLineDash([]);
  }
  ctx.strokeStyle = "#555"; ctx.lineWidth = 2 * px; ctx.beginPath();
  for (const line of fr.outlines) { ctx.moveTo(line[0], line[1]); for (let k = 2; k < line.length; k += 2) ctx.lineTo(line[k], line[k + 1]); }
  ctx.stroke();
  // Items. Those under 3 pixels across are plotted as pixels; unrotated rectangles are filled directly; the rest
  // are batched into one path per color. (10,000 items draw in a few milliseconds this way.)
  const st = fr.states, base = fr.base, resized = fr.sizes, byColor = new Map(), tiny = [];
  ctx.lineWidth = 0.5 * px; ctx.strokeStyle = "rgba(0,0,0,.55)";
  let lastColor = null;
  for (let i = 0; i < n; i++) {
    const [, w0, h0, ellipse, color] = r.items[i];
    const [w, h] = resized.size > 0 && resized.has(i) ? resized.get(i) : [w0, h0];
    const x = st[base + 3 * i], y = st[base + 3 * i + 1], a = st[base + 3 * i + 2];
    if (!Number.isFinite(x) || !Number.isFinite(y)) continue;
    if (Math.max(w, h) * s < 3) { tiny.push(i); continue; }
    if (!ellipse && Math.abs(a) < 1e-3) {
      if (color !== lastColor) { ctx.fillStyle = color; lastColor = color; }
      ctx.fillRect(x - w / 2, y - h / 2, w, h);
      if (n <= 2000) ctx.strokeRect(x - w / 2, y - h / 2, w, h);
      continue;
    }
    let path = byColor.get(color);
    if (!path) { path = new Path2D(); byColor.set(color, path); }
    if (ellipse) {
      path.moveTo(x + (w / 2) * Math.cos(a), y + (w / 2) * Math.sin(a));
      path.ellipse(x, y, w / 2, h / 2, a, 0, 2 * Math.PI);
    } else {
      const c = Math.cos(a), sn = Math.sin(a), hw = w / 2, hh = h / 2;
      path.moveTo(x + c * -hw - sn * -hh, y + sn * -hw + c * -hh);
      path.lineTo(x + c * hw - sn * -hh, y + sn * hw + c * -hh);
      path.lineTo(x + c * hw - sn * hh, y + sn * hw + c * hh);
      path.lineTo(x + c * -hw - sn * hh, y + sn * -hw + c * hh);
      path.closePath();
    }
  }
  for (const [color, path] of byColor) { ctx.fillStyle = color; ctx.fill(path); if (n <= 2000) ctx.stroke(path); }
  if (tiny.length > 0) {
    const image = ctx.getImageData(0, 0, canvas.width, canvas.height), pixels = image.data, W = canvas.width, H = canvas.height;
    for (const i of tiny) {
      const X = Math.floor((st[base + 3 * i] - vx) * s), Y = Math.floor((st[base + 3 * i + 1] - vy) * s);
      if (X < 0 || Y < 0 || X >= W || Y >= H) continue;
      const rgb = r.rgb[i], k = 4 * (Y * W + X);
      pixels[k] = rgb[0]; pixels[k + 1] = rgb[1]; pixels[k + 2] = rgb[2]; pixels[k + 3] = 255;
    }
    ctx.putImageData(image, 0, 0);
  }
  // Attachments and snap targets.
  const j = fr.joints;
  ctx.strokeStyle = "#2a6"; ctx.lineWidth = 1.5 * px; ctx.beginPath();
  for (let k = 0; k < j.length; k += 4) { ctx.moveTo(j[k], j[k + 1]); ctx.lineTo(j[k + 2], j[k + 3]); }
  ctx.stroke();
  ctx.fillStyle = "#2a6";
  for (let k = 0; k < j.length; k += 4) { ctx.beginPath(); ctx.arc(j[k + 2], j[k + 3], 2.5 * px, 0, 2 * Math.PI); ctx.fill(); }
  const sp = fr.snaps;
  ctx.strokeStyle = "#a3a"; ctx.setLineDash([4 * px, 3 * px]);
  for (let k = 0; k < sp.length; k += 4) {
    ctx.beginPath(); ctx.moveTo(sp[k], sp[k + 1]); ctx.lineTo(sp[k + 2], sp[k + 3]); ctx.stroke();
  }
  ctx.setLineDash([]);
  for (let k = 0; k < sp.length; k += 4) {
    ctx.beginPath(); ctx.arc(sp[k + 2], sp[k + 3], 6 * px, 0, 2 * Math.PI);
    ctx.moveTo(sp[k + 2] - 9 * px, sp[k + 3]); ctx.lineTo(sp[k + 2] + 9 * px, sp[k + 3]);
    ctx.moveTo(sp[k + 2], sp[k + 3] - 9 * px); ctx.lineTo(sp[k + 2], sp[k + 3] + 9 * px); ctx.stroke();
  }
  // Contacts begun in the last few frames, fading; in a crowd (a pile forming) only the first few of each frame,
  // so the markers do not hide the items.
  for (let back = 0; back < fr.contacts.length; back++) {
    const c = fr.contacts[back], limit = n > 100 ? 16 : 128;
    ctx.fillStyle = `rgba(220,40,40,${0.8 * (1 - back / 6)})`;
    for (let k = 0; k < c.length && k < limit; k += 2) { ctx.beginPath(); ctx.arc(c[k], c[k + 1], 3 * px, 0, 2 * Math.PI); ctx.fill(); }
  }
}
"""#

    /// The legend for what `drawScene` draws (style it with `#legend`), shared with the live sandbox.
    public static let legendHTML = #"""
<div id="legend" aria-label="legend">
  <span><svg viewBox="0 0 22 12"><rect x="1" y="1" width="9" height="10" fill="#4e79a7" stroke="#333" stroke-width=".6"/><rect x="12" y="1" width="9" height="10" fill="#f28e2b" stroke="#333" stroke-width=".6"/></svg>items, in their colors</span>
  <span><svg viewBox="0 0 22 12"><line x1="1" y1="6" x2="21" y2="6" stroke="#555" stroke-width="2"/></svg>boundaries</span>
  <span><svg viewBox="0 0 22 12"><rect x="1" y="1" width="20" height="10" fill="none" stroke="#bbb" stroke-dasharray="3 2"/></svg>reference bounds (the screen)</span>
  <span><svg viewBox="0 0 22 12"><line x1="1" y1="6" x2="18" y2="6" stroke="#2a6" stroke-width="1.5"/><circle cx="18" cy="6" r="2.5" fill="#2a6"/></svg>attachments (dot: the anchor or other item)</span>
  <span><svg viewBox="0 0 22 12"><line x1="1" y1="6" x2="15" y2="6" stroke="#a3a" stroke-dasharray="3 2"/><circle cx="16" cy="6" r="4" fill="none" stroke="#a3a"/></svg>snap targets</span>
  <span><svg viewBox="0 0 22 12"><circle cx="11" cy="6" r="3" fill="rgb(220,40,40)"/></svg>contacts as they begin</span>
</div>
"""#

    static let template = #"""
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>@TITLE@</title>
<style>
  html, body { height: 100%; }
  body { margin: 0; font: 14px system-ui, sans-serif; background: #f3f3ef; color: #222; display: flex; flex-direction: column; }
  header { display: flex; flex-wrap: wrap; gap: 10px; align-items: center; padding: 8px 12px; background: #fff; border-bottom: 1px solid #ddd; }
  header h1 { font-size: 16px; margin: 0 12px 0 0; }
  #scrub { flex: 1; min-width: 160px; }
  #counter { font-variant-numeric: tabular-nums; min-width: 230px; }
  #about { padding: 6px 12px 0; }
  #summary { margin: 0; }
  #outcome { margin: 2px 0 0; color: #555; }
  #legend { display: flex; flex-wrap: wrap; gap: 4px 16px; padding: 6px 12px; color: #444; font-size: 13px; }
  #legend span { display: inline-flex; align-items: center; gap: 6px; }
  #legend svg { width: 22px; height: 12px; }
  main { flex: 1; min-height: 0; display: flex; align-items: center; justify-content: center; padding: 0 12px 12px; }
  canvas { display: block; background: #fbfbf8; box-shadow: 0 1px 4px rgba(0,0,0,.15); }
  #probe { display: none; }
</style>
</head>
<body>
<header>
  <h1>@TITLE@</h1>
  <select id="rec" aria-label="recording"></select>
  <button id="play" type="button">Pause</button>
  <input id="scrub" type="range" min="0" max="0" value="0" step="1" aria-label="time">
  <label>speed <select id="speed"><option>0.25</option><option>0.5</option><option selected>1</option><option>2</option><option>4</option></select></label>
  <span id="counter"></span>
</header>
<div id="about"><p id="summary"></p><p id="outcome"></p></div>
@LEGEND@
<main><canvas id="view" width="900" height="600"></canvas></main>
<output id="probe"></output>
<script id="data" type="application/json">@DATA@</script>
<script>
"use strict";
@DRAWING@
const data = JSON.parse(document.getElementById("data").textContent);
const canvas = document.getElementById("view"), ctx = canvas.getContext("2d");
const recSelect = document.getElementById("rec"), playButton = document.getElementById("play");
const scrub = document.getElementById("scrub"), speedSelect = document.getElementById("speed");
const counter = document.getElementById("counter"), probe = document.getElementById("probe");
const summaryLine = document.getElementById("summary"), outcomeLine = document.getElementById("outcome");
function decode(b64) {
  const bin = atob(b64), bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return new Float32Array(bytes.buffer);
}
for (const r of data.recordings) { r.stateArray = decode(r.states); r.rgb = r.items.map(item => rgbOf(item[4])); }
data.recordings.forEach((r, k) => recSelect.add(new Option(r.title, k)));
recSelect.hidden = data.recordings.length < 2;

const params = new URLSearchParams(location.hash.slice(1));
let rec = Math.min(Math.max(0, parseInt(params.get("rec") || "0", 10) || 0), data.recordings.length - 1);
let frame = 0, playing = !params.has("paused"), last = null;

function current() { return data.recordings[rec]; }
function frameAt(r, t) { let k = 0; while (k + 1 < r.times.length && r.times[k + 1] <= t + 1e-9) k++; return k; }
function select(k, t) {
  rec = k; recSelect.value = String(k);
  const r = current();
  scrub.max = String(Math.max(0, r.times.length - 1));
  frame = frameAt(r, t || 0);
  summaryLine.textContent = r.summary || "";
  outcomeLine.textContent = r.outcome ? "Outcome: " + r.outcome : "";
  fit();
}
/// Sizes the canvas to the room the window leaves it, keeping the view's proportions.
function fit() {
  const r = current(), [, , w, h] = r.viewBox, room = canvas.parentElement.getBoundingClientRect();
  const vw = w * (1 + 2 * MARGIN), vh = h * (1 + 2 * MARGIN);
  const scale = Math.max(0.01, Math.min((room.width - 24) / vw, (room.height - 12) / vh));
  canvas.width = Math.max(200, Math.round(vw * scale)); canvas.height = Math.max(150, Math.round(vh * scale));
  draw();
}

let lastDrawMs = 0;
function draw() {
  const started = performance.now();
  drawFrame();
  lastDrawMs = performance.now() - started;
  if (params.has("probe")) writeProbe(Math.min(Math.floor(frame), current().times.length - 1));
}

function drawFrame() {
  const r = current(), f = Math.min(Math.floor(frame), r.times.length - 1), n = r.items.length;
  // Boundaries in force at this frame, items whose bounds changed by it (a button that grows), and the contacts
  // begun in the last few frames, newest first.
  let outlines = [];
  for (const [from, lines] of r.boundaries) if (from <= f) outlines = lines;
  const resized = new Map();
  for (const [from, i, w, h] of r.sizes) if (from <= f) resized.set(i, [w, h]);
  const contacts = [];
  for (let back = 0; back < 6 && f - back >= 0; back++) contacts.push(r.contacts[f - back] || []);
  drawScene(ctx, canvas, r, { states: r.stateArray, base: f * n * 3, outlines, sizes: resized,
                              joints: r.joints[f] || [], snaps: r.snaps[f] || [], contacts });
  scrub.value = String(f);
  counter.textContent = `frame ${f + 1} / ${r.times.length} · t = ${r.times[f].toFixed(2)} s · ${r.awake[f]} awake`;
  playButton.textContent = playing ? "Pause" : "Play";
}

function writeProbe(f) {
  const pixels = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
  let drawn = 0, sum = 0;
  for (let i = 0; i < pixels.length; i += 4) {
    const r = pixels[i], g = pixels[i + 1], b = pixels[i + 2];
    if (r !== 0xfb || g !== 0xfb || b !== 0xf8) drawn++;
    sum = (sum * 31 + r + 3 * g + 7 * b) % 1000000007;
  }
  probe.textContent = `frame=${f} drawn=${drawn} checksum=${sum} width=${canvas.width} height=${canvas.height} drawMs=${lastDrawMs.toFixed(2)}`;
}

function tick(now) {
  if (playing && last !== null) {
    const r = current(), dtFrame = (r.times.length > 1 ? r.times[1] - r.times[0] : 1 / 60) || 1 / 60;
    frame += ((now - last) / 1000) * parseFloat(speedSelect.value) / dtFrame;
    if (frame >= r.times.length) frame = 0;
    draw();
  }
  last = now;
  requestAnimationFrame(tick);
}

playButton.addEventListener("click", () => { playing = !playing; draw(); });
window.addEventListener("resize", fit);
scrub.addEventListener("input", () => { frame = parseInt(scrub.value, 10); playing = false; draw(); });
recSelect.addEventListener("change", () => select(parseInt(recSelect.value, 10), 0));
document.addEventListener("keydown", e => {
  if (e.key === " ") { playing = !playing; draw(); e.preventDefault(); }
  if (e.key === "ArrowRight") { frame = Math.min(frame + 1, current().times.length - 1); playing = false; draw(); }
  if (e.key === "ArrowLeft") { frame = Math.max(frame - 1, 0); playing = false; draw(); }
});
select(rec, parseFloat(params.get("t") || "0") || 0);
if (params.has("bench")) {
  // Playback cost: draw the next 30 frames as playing would, then report the mean (after the first, cold one).
  const start = frame, r = current();
  let total = 0;
  for (let k = 1; k <= 30; k++) { frame = Math.min(start + k, r.times.length - 1); draw(); total += lastDrawMs; }
  frame = start; draw();
  probe.textContent += ` playMs=${(total / 30).toFixed(2)}`;
}
requestAnimationFrame(tick);
</script>
</body>
</html>
"""#
}
