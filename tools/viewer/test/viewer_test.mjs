// Headless test of the ossa browser viewer (run by viewer_test.sh, which bakes WORK/walk.ossa
// and WORK/jog.ossa). Starts `ossa view` on a free port, opens its URL in Debian's Chromium
// through playwright-core (executablePath: nothing downloads a browser), and checks, printing
// one line per check and "N passed, N failed" at the end:
//   - the page loads both archives (67 joints, 2 clips) and the errors document, with no error
//   - playing advances the time
//   - a frame's joint positions equal the native runtime's (viewer_positions) within 1e-5,
//     alone and blended with the jog clip
//   - a screenshot shows the skeleton: skeleton-coloured pixels near the joints' projections
//     and none outside their box
//   - the error colours and legend follow the errors document (and an ossa info --json one):
//     red at the bake's tolerance (META tolerance=), on the canvas too; a clip well inside it
//     is not red; an archive without a tolerance is scaled to the clip's largest error and says so
//   - a bad file is refused with the loader's message, the file picker and a drop open files
//   - `ossa view` refuses a missing file, a non-archive and a busy port with one clear line
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { chromium } from "playwright-core";

const TOLERANCE = 1e-5;
const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, "")] = process.argv[i + 1];
const walk = path.join(args.work, "walk.ossa"), jog = path.join(args.work, "jog.ossa");
// The clips' names in the two archives, and the skeleton option for the source (none when the
// source has its own).
const [nameA, nameB] = (args.names || "walk,jog").split(",");
const skeletonArgs = args.skeleton ? ["--skeleton", args.skeleton] : [];

let passed = 0, failed = 0;
function check(ok, what, detail = "") {
  if (ok) ++passed;
  else ++failed;
  console.log(`${ok ? "ok  " : "FAIL"} ${what}${detail ? ": " + detail : ""}`);
  return ok;
}

// Runs `ossa view ARGS`; resolves to {url, proc} once it prints the URL, or {code, stderr}
// when it exits first.
function startView(viewArgs, timeoutMs = 60000) {
  return new Promise((resolve, reject) => {
    const proc = spawn(args.ossa, ["view", ...viewArgs], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "", err = "";
    const timer = setTimeout(() => { proc.kill("SIGTERM"); reject(new Error(`ossa view printed no URL in ${timeoutMs} ms: ${err}`)); }, timeoutMs);
    proc.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/^(http:\/\/127\.0\.0\.1:\d+\/\S*)$/m);
      if (m) { clearTimeout(timer); resolve({ url: m[1], proc, stderr: () => err }); }
    });
    proc.stderr.on("data", (d) => (err += d));
    proc.on("exit", (code) => { clearTimeout(timer); resolve({ code, stderr: err, out }); });
  });
}

function stopView(proc) {
  return new Promise((resolve) => {
    if (proc.exitCode !== null) return resolve(proc.exitCode);
    proc.on("exit", (code, signal) => resolve(code ?? signal));
    proc.kill("SIGTERM");
  });
}

function native(...a) {
  return JSON.parse(execFileSync(args.positions, a.map(String), { encoding: "utf8" })).positions;
}

function maxDiff(page, flat) {
  let d = 0;
  if (page.length * 3 !== flat.length) return Infinity;
  page.forEach((p, j) => p.forEach((v, c) => (d = Math.max(d, Math.abs(v - flat[3 * j + c])))));
  return d;
}

// Pixel counts of a PNG screenshot of the canvas, decoded by the page: skeleton-coloured
// pixels (bone blue or joint white) inside the joints' box (grown by `margin` px) and outside
// it, and how many joints have one within 3 px.
async function skeletonPixels(page, png, margin) {
  return page.evaluate(async ({ b64, margin }) => {
    const img = new Image();
    img.src = "data:image/png;base64," + b64;
    await img.decode();
    const c = document.createElement("canvas");
    c.width = img.width;
    c.height = img.height;
    const ctx = c.getContext("2d");
    ctx.drawImage(img, 0, 0);
    const px = ctx.getImageData(0, 0, c.width, c.height).data;
    const joints = window.ossaViewer.projectedJoints();
    const sx = c.width / document.getElementById("view").clientWidth;
    const xs = joints.map((p) => p[0] * sx), ys = joints.map((p) => p[1] * sx);
    const box = [Math.min(...xs) - margin, Math.min(...ys) - margin, Math.max(...xs) + margin, Math.max(...ys) + margin];
    const near = (i, rgb) => Math.abs(px[i] - rgb[0]) + Math.abs(px[i + 1] - rgb[1]) + Math.abs(px[i + 2] - rgb[2]) < 30;
    const isSkeleton = (x, y) => { const i = 4 * (y * c.width + x); return near(i, [110, 190, 255]) || near(i, [255, 255, 255]); };
    let inside = 0, outside = 0;
    for (let y = 0; y < c.height; ++y)
      for (let x = 0; x < c.width; ++x)
        if (isSkeleton(x, y)) {
          if (x >= box[0] && x <= box[2] && y >= box[1] && y <= box[3]) ++inside;
          else ++outside;
        }
    let hit = 0;
    for (let j = 0; j < xs.length; ++j) {
      let found = false;
      for (let dy = -3; dy <= 3 && !found; ++dy)
        for (let dx = -3; dx <= 3 && !found; ++dx) {
          const x = Math.round(xs[j]) + dx, y = Math.round(ys[j]) + dy;
          found = x >= 0 && y >= 0 && x < c.width && y < c.height && isSkeleton(x, y);
        }
      if (found) ++hit;
    }
    return { inside, outside, hit, joints: xs.length, box: box.map(Math.round), size: [c.width, c.height] };
  }, { b64: png.toString("base64"), margin });
}

// How many joints have, within 2 px of their projection on a PNG screenshot of the canvas, a
// pixel of their expected colour ([r, g, b] 0-255, within 12 summed over the channels).
async function jointPixels(page, png, colours) {
  return page.evaluate(async ({ b64, colours }) => {
    const img = new Image();
    img.src = "data:image/png;base64," + b64;
    await img.decode();
    const c = document.createElement("canvas");
    c.width = img.width;
    c.height = img.height;
    const ctx = c.getContext("2d");
    ctx.drawImage(img, 0, 0);
    const px = ctx.getImageData(0, 0, c.width, c.height).data;
    const sx = c.width / document.getElementById("view").clientWidth;
    let hit = 0;
    window.ossaViewer.projectedJoints().forEach((p, j) => {
      let found = false;
      for (let dy = -2; dy <= 2 && !found; ++dy)
        for (let dx = -2; dx <= 2 && !found; ++dx) {
          const x = Math.round(p[0] * sx) + dx, y = Math.round(p[1] * sx) + dy;
          if (x < 0 || y < 0 || x >= c.width || y >= c.height) continue;
          const i = 4 * (y * c.width + x), rgb = colours[j];
          found = Math.abs(px[i] - rgb[0]) + Math.abs(px[i + 1] - rgb[1]) + Math.abs(px[i + 2] - rgb[2]) <= 12;
        }
      if (found) ++hit;
    });
    return { hit };
  }, { b64: png.toString("base64"), colours });
}

async function main() {
  // Command-line errors first: each exits non-zero with one line naming the problem.
  const notThere = path.join(args.work, "missing.ossa");
  let r = await startView([notThere, "--port", "0"]);
  check(r.code === 1 && r.stderr.includes("missing.ossa"), "ossa view refuses a missing file", r.stderr.trim());
  const junk = path.join(args.work, "junk.ossa");
  fs.writeFileSync(junk, "not an archive at all, just text\n");
  r = await startView([junk, "--port", "0"]);
  check(r.code === 1 && r.stderr.includes("is not a valid .ossa archive"), "ossa view refuses a non-archive", r.stderr.trim());

  const view = await startView([walk, jog, "--against", args.source, ...skeletonArgs, "--port", "0"]);
  if (!check(view.url !== undefined, "ossa view prints the URL", view.url || view.stderr)) return;
  const port = new URL(view.url).port;
  r = await startView([walk, "--port", port]);
  check(r.code === 1 && r.stderr.includes("in use"), "a second ossa view on the same port says it is in use", r.stderr.trim());

  const userDir = fs.mkdtempSync(path.join(args.work, "chromium-"));
  const browser = await chromium.launchPersistentContext(userDir, {
    executablePath: args.chromium,
    headless: true,
    viewport: { width: 1000, height: 640 },
    deviceScaleFactor: 1,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--use-angle=swiftshader", "--enable-unsafe-swiftshader"],
  });
  try {
    const page = await browser.newPage();
    const consoleErrors = [];
    page.on("pageerror", (e) => consoleErrors.push(String(e)));
    page.on("console", (m) => m.type() === "error" && consoleErrors.push(m.text()));
    await page.goto(view.url);
    await page.waitForFunction(() => window.ossaViewer && window.ossaViewer.loaded, null, { timeout: 30000 });
    const info = await page.evaluate(() => ({
      joints: window.ossaViewer.joints().length, clips: window.ossaViewer.clips(), error: window.ossaViewer.lastError,
      webgl: !!document.getElementById("view").getContext("webgl"),
    }));
    const jointCount = native(walk, 0, 0).length / 3; /* x, y, z of each joint */
    check(info.error === "" && info.joints === jointCount && info.clips.length === 2, `the page loads walk.ossa and jog.ossa (${jointCount} joints)`,
      `${info.joints} joints, clips ${info.clips.map((c) => `${c.name} ${c.duration.toFixed(3)} s`).join(", ")}${info.error ? ", error: " + info.error : ""}`);
    check(info.webgl, "WebGL is available");

    // Playing advances the clock.
    const t0 = await page.evaluate(() => window.ossaViewer.state().time);
    await page.waitForFunction((t) => window.ossaViewer.state().time !== t, t0, { timeout: 5000 }).catch(() => {});
    const st = await page.evaluate(() => window.ossaViewer.state());
    check(st.playing && st.time !== t0, "playing advances the time", `${t0.toFixed(3)} s -> ${st.time.toFixed(3)} s`);

    // One frame against the native runtime.
    const t = 0.5;
    const pagePos = await page.evaluate((t) => { window.ossaViewer.pause(); window.ossaViewer.setTime(t); return window.ossaViewer.jointPositions(); }, t);
    const d1 = maxDiff(pagePos, native(walk, 0, t));
    check(d1 <= TOLERANCE, `walk at ${t} s: joint positions equal the native runtime's`, `max |page - native| = ${d1.toExponential(2)} (tolerance ${TOLERANCE})`);
    const blended = await page.evaluate(() => { window.ossaViewer.setBlend(1, 0.3); return { p: window.ossaViewer.jointPositions(), s: window.ossaViewer.state() }; });
    const d2 = maxDiff(blended.p, native(walk, 0, blended.s.time, jog, 0, Math.fround(blended.s.timeB).toPrecision(9), 0.3));
    const moved = maxDiff(blended.p, pagePos.flat());
    check(d2 <= TOLERANCE && moved > 1e-3, "walk blended with jog (weight 0.3): positions equal the native runtime's",
      `max |page - native| = ${d2.toExponential(2)}, ${moved.toFixed(3)} from the walk alone`);
    fs.writeFileSync(path.join(args.viewer, "viewer-test-positions.json"), JSON.stringify({ time: t, max_difference: d1, max_difference_blended: d2 }) + "\n");

    // The screenshot shows the skeleton (plain colours), where its joints project.
    await page.evaluate(() => { window.ossaViewer.setBlend(-1, 0); document.getElementById("show-errors").checked = false; window.ossaViewer.setTime(0.5); });
    const canvas = page.locator("#view");
    const shot = await canvas.screenshot();
    fs.writeFileSync(path.join(args.viewer, "viewer-test.png"), shot);
    const px = await skeletonPixels(page, shot, 8);
    check(px.inside >= 300 && px.outside === 0 && px.hit >= 0.9 * px.joints, "the screenshot shows the skeleton",
      `${px.inside} skeleton pixels inside the joints' box ${JSON.stringify(px.box)} of ${px.size.join("x")}, ${px.outside} outside, ${px.hit}/${px.joints} joints drawn`);

    // Error colours: the legend's maximum is the document's, the bones take the ramp.
    const err = await page.evaluate(async () => {
      document.getElementById("show-errors").checked = true;
      window.ossaViewer.setTime(0.5);
      const doc = await (await fetch(new URLSearchParams(location.search).get("errors"))).json();
      return { doc, legend: document.getElementById("errors-max").textContent, shown: getComputedStyle(document.getElementById("errors-legend")).display };
    });
    const errShot = await canvas.screenshot();
    fs.writeFileSync(path.join(args.viewer, "viewer-test-errors.png"), errShot);
    const jm = err.doc.clips[0].joint_max_mm;
    // The bake's default tolerance, 0.1 mm, is what shows red (the walk's META tolerance=0.0001).
    const meta = fs.readFileSync(walk).toString("latin1").match(/\ntolerance=([^\n]*)\n/);
    const tolMm = meta ? Number(meta[1]) * 1000 : NaN;
    const expected = `${tolMm.toPrecision(3)} mm`;
    // Each joint's colour is the ramp at its error over the tolerance, in the page and on the canvas.
    const ramp = (x) => {
      x = Math.min(Math.max(x, 0), 1);
      const g = [60, 200, 90], y = [240, 220, 60], r = [240, 60, 50];
      const [p, q, t] = x < 0.5 ? [g, y, x * 2] : [y, r, x * 2 - 1];
      return p.map((v, i) => Math.round(v + (q[i] - v) * t));
    };
    const far = (a, b) => Math.abs(a[0] - b[0]) + Math.abs(a[1] - b[1]) + Math.abs(a[2] - b[2]);
    const onCanvas = await jointPixels(page, errShot, jm.map((e) => ramp(e / tolMm)));
    await page.setViewportSize({ width: 1000, height: 860 });
    fs.writeFileSync(path.join(args.viewer, "viewer-test-page.png"), await page.screenshot());
    const pxErr = await skeletonPixels(page, errShot, 8);
    check(err.shown !== "none" && jm.length === jointCount && meta && err.legend === expected && pxErr.inside < px.inside / 4,
      "joints are coloured by their error against the source, red at the bake's tolerance",
      `legend ${err.legend} (META tolerance ${meta && meta[1]} m), clip max ${err.doc.clips[0].max_mm} mm, ${pxErr.inside} plain-coloured pixels left`);
    const drawn = await page.evaluate(() => ({ colours: window.ossaViewer.jointColours(), scale: window.ossaViewer.errorScale() }));
    const wrong = jm.filter((e, j) => !drawn.colours || far(drawn.colours[j], ramp(e / tolMm)) > 3).length;
    check(drawn.scale && drawn.scale.source === "tolerance" && Math.abs(drawn.scale.mm - tolMm) < 1e-6 * tolMm && wrong === 0 &&
      onCanvas.hit >= 0.8 * jointCount, "each joint's colour is its error over the tolerance",
      `scale ${JSON.stringify(drawn.scale)}, ${wrong} joints off the ramp, ${onCanvas.hit}/${jointCount} joints drawn in their colour`);

    // A clip well inside its tolerance (the same errors halved) is not red: its worst joint is
    // yellow, where scaling to the clip's own largest error made it red.
    const worstJ = jm.indexOf(Math.max(...jm));
    const halved = { ...err.doc, clips: [{ ...err.doc.clips[0], joint_max_mm: jm.map((e) => e / 2), max_mm: err.doc.clips[0].max_mm / 2 }] };
    const inside = await page.evaluate((doc) => { window.ossaViewer.loadErrors(doc); return window.ossaViewer.jointColours(); }, halved);
    check(inside && far(inside[worstJ], ramp(jm[worstJ] / 2 / tolMm)) <= 3 && far(inside[worstJ], ramp(1)) > 100,
      "a clip at half its tolerance shows its worst joint yellow, not red", `worst joint ${inside && inside[worstJ]} (red is ${ramp(1)})`);

    // The same colours from an `ossa info --json` document opened by hand.
    const infoDoc = execFileSync(args.ossa, ["info", walk, "--against", args.source, ...skeletonArgs, "--json"], { encoding: "utf8" });
    const infoLegend = await page.evaluate((doc) => { window.ossaViewer.loadErrors(doc); return document.getElementById("errors-max").textContent; }, infoDoc);
    check(infoLegend === expected, "an ossa info --json document colours the joints too", `legend ${infoLegend}`);

    // An archive without META tolerance (lossless here, or baked before the line existed): the
    // colours fall back to the clip's largest error and the legend says so.
    const fallback = await page.evaluate(async ({ b64, doc }) => {
      const v = window.ossaViewer;
      v.reset();
      await v.load(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)), "lossless.ossa");
      v.loadErrors(doc);
      return { scale: v.errorScale(), colours: v.jointColours(), legend: document.getElementById("errors-max").textContent,
        says: document.getElementById("errors-scale").textContent };
    }, { b64: fs.readFileSync(path.join(args.work, "lossless.ossa")).toString("base64"), doc: halved });
    const halfMax = Math.max(...halved.clips[0].joint_max_mm);
    check(fallback.scale && fallback.scale.source === "clip" && fallback.legend === `${halfMax.toPrecision(3)} mm` &&
      /no tolerance/.test(fallback.says) && far(fallback.colours[worstJ], ramp(1)) <= 3,
      "without a tolerance in the archive, red is the clip's largest error and the legend says so", `${fallback.legend}: ${fallback.says}`);
    await page.evaluate(() => window.ossaViewer.reset());
    await page.evaluate(async () => { for (const u of new URLSearchParams(location.search).getAll("file")) await window.ossaViewer.loadUrl(u); });

    // A bad file is refused with the archive loader's message, and the scene is kept.
    const bad = await page.evaluate(async () => {
      try { await window.ossaViewer.load(new Uint8Array(64), "zeros.ossa"); return "loaded"; } catch (e) { return e.message; }
    });
    const after = await page.evaluate(() => window.ossaViewer.clips().length);
    check(/^zeros\.ossa: not a valid \.ossa archive: /.test(bad) && after === 2, "a bad file is refused with the loader's error", bad);

    // The file picker: close everything, open walk.ossa through the <input type=file>.
    await page.evaluate(() => window.ossaViewer.reset());
    await page.setInputFiles("#file", walk);
    await page.waitForFunction(() => window.ossaViewer.clips().length === 1, null, { timeout: 10000 }).catch(() => {});
    const picked = await page.evaluate(() => ({ clips: window.ossaViewer.clips(), status: document.getElementById("status").textContent }));
    check(picked.clips.length === 1 && picked.clips[0].name === nameA, "the file picker opens an archive", picked.status);
    // Drag and drop: jog.ossa dropped on the view adds its clip.
    const dropped = await page.evaluate(async (b64) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], "jog.ossa"));
      document.getElementById("stage").dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
      for (let i = 0; i < 100 && window.ossaViewer.clips().length < 2; ++i) await new Promise((r) => setTimeout(r, 50));
      return window.ossaViewer.clips().map((c) => c.name);
    }, fs.readFileSync(jog).toString("base64"));
    check(dropped.join() === `${nameA},${nameB}`, "a dropped archive adds its clips", dropped.join(", "));
    check(consoleErrors.length === 0, "no script errors", consoleErrors.join("; "));
  } finally {
    await browser.close();
    const code = await stopView(view.proc);
    check(code === 0 || code === "SIGTERM", "ossa view stops on SIGTERM", String(code));
  }
}

main()
  .catch((e) => check(false, "viewer test", e.stack || String(e)))
  .finally(() => {
    console.log(`${passed} passed, ${failed} failed`);
    process.exit(failed ? 1 : 0);
  });
