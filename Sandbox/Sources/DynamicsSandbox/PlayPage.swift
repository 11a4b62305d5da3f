import DynamicsReplay

/// The sandbox's page: the scene drawn live with the replay page's drawing code, pointer gestures sent to the
/// server, a toolbar and the live figures.
///
/// For tests and tools, `window.sandbox` exposes what the page holds: `step`, `scene`, `states` (x, y, angle per
/// item), `frames` (frames received), `errors` (messages the server refused, newest last), `stats` (the last figures),
/// `toClient(x, y)` (a scene point in the window's CSS pixels), `send(object)` and `sendRaw(text)`.
public enum PlayPage {
    public static func html(title: String) -> String {
        template
            .replacingOccurrences(of: "@TITLE@", with: xml(title))
            .replacingOccurrences(of: "@DRAWING@", with: ReplayPage.drawingScript)
            .replacingOccurrences(of: "@LEGEND@", with: ReplayPage.legendHTML)
    }

    static let template = #"""
<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>@TITLE@</title>
<style>
  html, body { height: 100%; }
  body { margin: 0; font: 14px system-ui, sans-serif; background: #f3f3ef; color: #222; display: flex; flex-direction: column; }
  header { display: flex; flex-wrap: wrap; gap: 8px 12px; align-items: center; padding: 8px 12px; background: #fff; border-bottom: 1px solid #ddd; }
  header h1 { font-size: 16px; margin: 0 8px 0 0; }
  #figures { font-variant-numeric: tabular-nums; padding: 4px 12px 0; color: #333; min-height: 1.3em; }
  #stages { font-variant-numeric: tabular-nums; padding: 0 12px; color: #666; font-size: 12px; min-height: 1.3em; }
  #message { padding: 2px 12px; color: #b00; min-height: 1.2em; font-size: 13px; }
  #about { padding: 4px 12px 0; margin: 0; }
  #legend { display: flex; flex-wrap: wrap; gap: 4px 16px; padding: 6px 12px; color: #444; font-size: 13px; }
  #legend span { display: inline-flex; align-items: center; gap: 6px; }
  #legend svg { width: 22px; height: 12px; }
  main { flex: 1; min-height: 0; display: flex; align-items: center; justify-content: center; padding: 0 12px 12px; }
  canvas { display: block; background: #fbfbf8; box-shadow: 0 1px 4px rgba(0,0,0,.15); touch-action: none; cursor: grab; }
  canvas.dragging { cursor: grabbing; }
  #status.offline { color: #b00; font-weight: 600; }
</style>
</head>
<body>
<header>
  <h1>@TITLE@</h1>
  <button id="pause" type="button">Pause</button>
  <button id="step" type="button" disabled>Step</button>
  <button id="reset" type="button">Reset</button>
  <label>speed <select id="speed"><option>0.25</option><option>0.5</option><option selected>1</option><option>2</option><option>4</option></select></label>
  <label title="the direction of gravity">tilt <input id="tilt" type="range" min="-90" max="90" value="0" step="1"> <span id="tiltValue">0°</span></label>
  <button id="spawnBox" type="button">+ box</button>
  <button id="spawnBall" type="button">+ ball</button>
  <label title="or hold Alt when letting go"><input id="snapBack" type="checkbox"> snap back on release</label>
  <span id="status">connecting…</span>
</header>
<p id="about"></p>
<div id="figures"></div>
<div id="stages"></div>
<div id="message" role="status"></div>
@LEGEND@
<main><canvas id="view" width="900" height="600"></canvas></main>
<script>
"use strict";
@DRAWING@
const canvas = document.getElementById("view"), ctx = canvas.getContext("2d");
const $ = id => document.getElementById(id);
const state = { step: 0, scene: null, states: new Float32Array(0), frames: 0, errors: [], stats: null,
                joints: [], snaps: [], contacts: [], sizes: new Map(), dirty: false };
window.sandbox = state;
const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
ws.binaryType = "arraybuffer";
state.send = object => { if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(object)); };
state.sendRaw = text => ws.send(text);
ws.onopen = () => { $("status").textContent = "live"; $("status").className = ""; };
ws.onclose = e => { $("status").textContent = "disconnected" + (e.reason ? ": " + e.reason : ""); $("status").className = "offline"; };
ws.onmessage = e => {
  if (typeof e.data !== "string") { frame(e.data); return; }
  const m = JSON.parse(e.data);
  if (m.kind === "scene") {
    m.rgb = m.items.map(item => rgbOf(item[4]));
    state.scene = m; state.states = new Float32Array(3 * m.items.length);
    $("about").textContent = m.summary;
    fit();
  } else if (m.kind === "stats") {
    state.stats = m;
    $("pause").textContent = m.paused ? "Play" : "Pause"; $("step").disabled = !m.paused;
    $("figures").textContent = `step ${m.step} · ${m.stepsPerSecond} steps/s · ${m.items} items · ${m.awake} awake` +
      ` · ${m.contacts} contacts · ${m.paused ? "paused" : m.resting ? "at rest" : "running"} · speed ${m.speed}×` +
      ` · ${m.clients} page${m.clients === 1 ? "" : "s"} · ${m.bytesPerFrame} bytes/frame` + (m.dropped ? ` · ${m.dropped} frames skipped (slow link)` : "");
    const st = m.stagesMs;
    $("stages").textContent = `last step, ms: forces ${st.forces} · broadphase ${st.broadphase} · narrowphase ${st.narrowphase}` +
      ` · solve ${st.solve} · islands ${st.islands} · engine ${st.engine} · write-back ${st.writeBack}`;
  } else if (m.kind === "error") {
    state.errors.push(m.message); $("message").textContent = "refused: " + m.message;
  }
};

function frame(buffer) {
  const scene = state.scene; if (!scene) return;
  const dv = new DataView(buffer), kind = dv.getUint8(0);
  const step = dv.getUint32(4, true), version = dv.getUint32(8, true), count = dv.getUint32(12, true), entries = dv.getUint32(16, true);
  // A frame of another item table (the scene was just reset or grew): the new table is on its way.
  if (version !== scene.version || count !== scene.items.length) return;
  let at = 20;
  if (kind === 1) {
    state.states.set(new Float32Array(buffer, at, 3 * entries)); at += 12 * entries;
  } else {
    const index = new Uint32Array(buffer, at, entries), values = new Float32Array(buffer, at + 4 * entries, 3 * entries);
    for (let e = 0; e < entries; e++) { const k = 3 * index[e]; state.states[k] = values[3 * e]; state.states[k + 1] = values[3 * e + 1]; state.states[k + 2] = values[3 * e + 2]; }
    at += 16 * entries;
  }
  const joints = dv.getUint16(at + 4, true), snaps = dv.getUint16(at + 6, true), contacts = dv.getUint16(at + 8, true);
  at += 12;
  state.joints = new Float32Array(buffer, at, 4 * joints); at += 16 * joints;
  state.snaps = new Float32Array(buffer, at, 4 * snaps); at += 16 * snaps;
  state.contacts.unshift(new Float32Array(buffer, at, 2 * contacts)); if (state.contacts.length > 6) state.contacts.pop();
  state.step = step; state.frames++; state.dirty = true;
}

function fit() {
  if (!state.scene) return;
  const [, , w, h] = state.scene.viewBox, room = canvas.parentElement.getBoundingClientRect();
  const vw = w * (1 + 2 * MARGIN), vh = h * (1 + 2 * MARGIN);
  const scale = Math.max(0.01, Math.min((room.width - 24) / vw, (room.height - 12) / vh));
  canvas.width = Math.max(200, Math.round(vw * scale)); canvas.height = Math.max(150, Math.round(vh * scale));
  state.dirty = true;
}
function draw() {
  if (state.dirty && state.scene) {
    drawScene(ctx, canvas, state.scene, { states: state.states, base: 0, outlines: state.scene.outlines, sizes: state.sizes,
                                          joints: state.joints, snaps: state.snaps, contacts: state.contacts });
    state.dirty = false;
  }
  requestAnimationFrame(draw);
}
requestAnimationFrame(draw);
// The canvas fills the room the page leaves it, whenever that changes (the window, the toolbar wrapping).
new ResizeObserver(fit).observe(canvas.parentElement);

// Pointer gestures: scene coordinates from the canvas, one small number per pointer.
function toScene(e) {
  const rect = canvas.getBoundingClientRect(), v = viewOf(state.scene, canvas);
  const px = (e.clientX - rect.left) * canvas.width / rect.width, py = (e.clientY - rect.top) * canvas.height / rect.height;
  return [v.vx + px / v.s, v.vy + py / v.s];
}
state.toClient = (x, y) => {
  const rect = canvas.getBoundingClientRect(), v = viewOf(state.scene, canvas);
  return [rect.left + (x - v.vx) * v.s * rect.width / canvas.width, rect.top + (y - v.vy) * v.s * rect.height / canvas.height];
};
const pointers = new Map();
canvas.addEventListener("pointerdown", e => {
  if (!state.scene || pointers.size >= 16) return;
  let id = 0; while ([...pointers.values()].includes(id)) id++;
  pointers.set(e.pointerId, id);
  canvas.setPointerCapture(e.pointerId); canvas.classList.add("dragging");
  const [x, y] = toScene(e);
  trails.set(e.pointerId, [[performance.now(), x, y]]);
  state.send({ kind: "down", pointer: id, x, y });
  e.preventDefault();
});
// Each pointer's recent positions (scene points, with their times), for its velocity when it lifts: the mean over
// the last 100 ms, as a pan gesture recognizer measures it.
const trails = new Map();
function remember(e, x, y) {
  const trail = trails.get(e.pointerId) || [];
  trail.push([performance.now(), x, y]);
  while (trail.length > 2 && trail[trail.length - 1][0] - trail[0][0] > 100) trail.shift();
  trails.set(e.pointerId, trail);
}
canvas.addEventListener("pointermove", e => {
  if (!pointers.has(e.pointerId)) return;
  const [x, y] = toScene(e);
  remember(e, x, y);
  state.lastMoveStep = state.step;
  state.send({ kind: "move", pointer: pointers.get(e.pointerId), x, y });
});
function lift(e) {
  if (!pointers.has(e.pointerId)) return;
  const trail = trails.get(e.pointerId) || [];
  let vx = 0, vy = 0;
  if (trail.length >= 2) {
    const [t0, x0, y0] = trail[0], [t1, x1, y1] = trail[trail.length - 1], dt = (t1 - t0) / 1000;
    // A pointer that rested before lifting has no velocity.
    if (dt > 0 && performance.now() - t1 < 80) { vx = (x1 - x0) / dt; vy = (y1 - y0) / dt; }
  }
  state.send({ kind: "up", pointer: pointers.get(e.pointerId), snapBack: e.altKey || $("snapBack").checked, vx, vy });
  trails.delete(e.pointerId);
  pointers.delete(e.pointerId);
  if (pointers.size === 0) canvas.classList.remove("dragging");
}
canvas.addEventListener("pointerup", lift);
canvas.addEventListener("pointercancel", lift);

$("pause").addEventListener("click", () => state.send({ kind: state.stats && state.stats.paused ? "play" : "pause" }));
$("step").addEventListener("click", () => state.send({ kind: "step" }));
$("reset").addEventListener("click", () => state.send({ kind: "reset" }));
$("speed").addEventListener("change", () => state.send({ kind: "speed", value: parseFloat($("speed").value) }));
$("tilt").addEventListener("input", () => {
  const degrees = parseInt($("tilt").value, 10);
  $("tiltValue").textContent = `${degrees}°`;
  // 0° is straight down (π/2 from +x); positive tilts gravity toward +x, as tilting the device right would.
  state.send({ kind: "tilt", angle: Math.PI / 2 - degrees * Math.PI / 180 });
});
function spawn(ball) {
  if (!state.scene) return;
  const [bx, by, bw] = state.scene.viewBox;
  state.send({ kind: "spawn", x: bx + bw * (0.2 + 0.6 * Math.random()), y: by + 40, ball });
}
$("spawnBox").addEventListener("click", () => spawn(false));
$("spawnBall").addEventListener("click", () => spawn(true));
document.addEventListener("keydown", e => {
  if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;
  if (e.key === " ") { $("pause").click(); e.preventDefault(); }
  if (e.key === "s") $("step").click();
  if (e.key === "r") $("reset").click();
});
</script>
</body>
</html>
"""#
}
