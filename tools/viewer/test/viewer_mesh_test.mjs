// Headless test of the viewer's skinned mesh (`ossa view --mesh`, run by viewer_test.sh). For
// each model: a tube the test writes itself (three named joints, an external buffer whose name
// has a space, unsigned byte joints and normalised unsigned byte weights interleaved with a
// byteStride, a 150 degree twist) and, when the data directory has it, cesium_man.gltf (a
// data: buffer, float weights, unnamed joints, a root node turning Z up into Y up), it bakes the
// model with `ossa bake`, serves archive and model with `ossa view --mesh`, and checks in
// Chromium:
//   - the page reads the mesh: its vertex count and skin joints are the model's, each skin joint
//     maps to the skeleton joint of the same name in the archive (the names from the native
//     runtime, viewer_positions);
//   - the skinned positions the page draws, linear blend and dual quaternion, equal this test's
//     own skinning (double precision, its own glTF reader, palette model * inverse bind from the
//     native runtime's model-space matrices);
//   - linear blend and dual quaternion differ where a vertex has several joints and the pose
//     turns them apart, agree where a vertex has one joint, and agree at the rest pose (the
//     tube's: the bind positions);
//   - the canvas shows mesh-coloured pixels, none with the mesh hidden;
//   - the same model as a GLB (the test packs it) gives the same vertices; a GLB whose skin names
//     a joint the skeleton lacks, or whose positions run past their buffer view, is refused with
//     the reason and leaves no mesh;
//   - `ossa view --mesh` refuses a model whose skin names a joint the skeleton lacks, one
//     without a skin, and one whose buffer file is missing, each with one line (exit 1).
// Prints one line per check, then "N passed, N failed"; exit status 1 when one failed.
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { chromium } from "playwright-core";

const args = {};
for (let i = 2; i < process.argv.length; i += 2) args[process.argv[i].replace(/^--/, "")] = process.argv[i + 1];
// Page (float, WebAssembly) against this test (double): measured below 2e-6 m on both models.
const TOLERANCE = 1e-5;

let passed = 0, failed = 0;
function check(ok, what, detail = "") {
  if (ok) ++passed;
  else ++failed;
  console.log(`${ok ? "ok  " : "FAIL"} ${what}${detail ? ": " + detail : ""}`);
  return ok;
}

function startView(viewArgs, timeoutMs = 60000) {
  return new Promise((resolve, reject) => {
    const proc = spawn(args.ossa, ["view", ...viewArgs], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "", err = "";
    const timer = setTimeout(() => { proc.kill("SIGTERM"); reject(new Error(`ossa view printed no URL in ${timeoutMs} ms: ${err}`)); }, timeoutMs);
    proc.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/^(http:\/\/127\.0\.0\.1:\d+\/\S*)$/m);
      if (m) { clearTimeout(timer); resolve({ url: m[1], proc }); }
    });
    proc.stderr.on("data", (d) => (err += d));
    proc.on("exit", (code) => { clearTimeout(timer); resolve({ code, stderr: err }); });
  });
}

function stopView(proc) {
  return new Promise((resolve) => {
    if (proc.exitCode !== null) return resolve(proc.exitCode);
    proc.on("exit", (code, signal) => resolve(code ?? signal));
    proc.kill("SIGTERM");
  });
}

// ---- The tube: three joints up +Y, 21 rings of 12 vertices, radius 0.2 m ----------------------
function writeTube(dir) {
  const rings = 21, sides = 12, radius = 0.2;
  const pos = [], nrm = [], jw = [], idx = [];
  for (let r = 0; r < rings; ++r) {
    const y = (2 * r) / (rings - 1);
    // Weights by height: root 1 at y 0, mid 1 at y 1, tip 1 at y 2, linear between.
    const root = Math.max(0, 1 - y), tip = Math.max(0, y - 1), mid = 1 - root - tip;
    for (let s = 0; s < sides; ++s) {
      const a = (2 * Math.PI * s) / sides;
      pos.push(radius * Math.cos(a), y, radius * Math.sin(a));
      nrm.push(Math.cos(a), 0, Math.sin(a));
      jw.push([0, 1, 2, 0], [root, mid, tip, 0].map((w) => Math.round(w * 255)));
    }
  }
  for (let r = 0; r + 1 < rings; ++r)
    for (let s = 0; s < sides; ++s) {
      const a = r * sides + s, b = r * sides + ((s + 1) % sides), c = a + sides, d = b + sides;
      idx.push(a, c, b, b, c, d);
    }
  const n = rings * sides;
  // Layout: positions, normals (float), joints+weights interleaved (8 bytes a vertex), indices
  // (ushort), inverse bind matrices, animation times and rotations.
  const bytes = [];
  const f32 = (list) => bytes.push(Buffer.from(new Float32Array(list).buffer));
  f32(pos);
  f32(nrm);
  const inter = Buffer.alloc(8 * n);
  for (let v = 0; v < n; ++v) for (let c = 0; c < 4; ++c) { inter[8 * v + c] = jw[2 * v][c]; inter[8 * v + 4 + c] = jw[2 * v + 1][c]; }
  bytes.push(inter);
  bytes.push(Buffer.from(new Uint16Array(idx).buffer));
  // Inverse bind: the joints sit at y 0, 1, 2 with no rotation.
  const ibm = [];
  for (let j = 0; j < 3; ++j) ibm.push(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -j, 0, 1);
  f32(ibm);
  const q = (axis, deg) => { const h = (deg * Math.PI) / 360, s = Math.sin(h); return [axis[0] * s, axis[1] * s, axis[2] * s, Math.cos(h)]; };
  f32([0, 0.5, 1]);
  f32([...q([0, 1, 0], 0), ...q([0, 1, 0], 150), ...q([0, 0, 1], 60)]); // mid: twist, then bend
  f32([...q([1, 0, 0], 0), ...q([1, 0, 0], 45), ...q([1, 0, 0], 0)]);   // tip
  const views = [], offsets = [];
  let at = 0;
  for (const b of bytes) { offsets.push(at); at += b.length; }
  bytes.forEach((b, i) => views.push({ buffer: 0, byteOffset: offsets[i], byteLength: b.length }));
  views[2].byteStride = 8;
  const json = {
    asset: { version: "2.0", generator: "ossa viewer test" },
    scene: 0,
    scenes: [{ nodes: [0, 3] }],
    nodes: [
      { name: "root", children: [1] },
      { name: "mid", translation: [0, 1, 0], children: [2] },
      { name: "tip", translation: [0, 1, 0] },
      { name: "tube", mesh: 0, skin: 0, translation: [5, 0, 0] }, // ignored for a skinned mesh
    ],
    meshes: [{ primitives: [{ attributes: { POSITION: 0, NORMAL: 1, JOINTS_0: 2, WEIGHTS_0: 3 }, indices: 4 }] }],
    skins: [{ joints: [0, 1, 2], inverseBindMatrices: 5 }],
    animations: [{
      name: "twist",
      channels: [{ sampler: 0, target: { node: 1, path: "rotation" } }, { sampler: 1, target: { node: 2, path: "rotation" } }],
      samplers: [{ input: 6, output: 7, interpolation: "LINEAR" }, { input: 6, output: 8, interpolation: "LINEAR" }],
    }],
    accessors: [
      { bufferView: 0, componentType: 5126, count: n, type: "VEC3", min: [-radius, 0, -radius], max: [radius, 2, radius] },
      { bufferView: 1, componentType: 5126, count: n, type: "VEC3" },
      { bufferView: 2, byteOffset: 0, componentType: 5121, count: n, type: "VEC4" },
      { bufferView: 2, byteOffset: 4, componentType: 5121, normalized: true, count: n, type: "VEC4" },
      { bufferView: 3, componentType: 5123, count: idx.length, type: "SCALAR" },
      { bufferView: 4, componentType: 5126, count: 3, type: "MAT4" },
      { bufferView: 5, componentType: 5126, count: 3, type: "SCALAR", min: [0], max: [1] },
      { bufferView: 6, componentType: 5126, count: 3, type: "VEC4" },
      { bufferView: 7, componentType: 5126, count: 3, type: "VEC4" },
    ],
    bufferViews: views,
    buffers: [{ uri: "tube%20data.bin", byteLength: at }],
  };
  fs.writeFileSync(path.join(dir, "tube data.bin"), Buffer.concat(bytes));
  const file = path.join(dir, "tube.gltf");
  fs.writeFileSync(file, JSON.stringify(json));
  return file;
}

// ---- This test's own glTF reading and skinning (double precision) ------------------------------
function loadGltf(file) {
  const json = JSON.parse(fs.readFileSync(file, "utf8"));
  const buffers = json.buffers.map((b) => b.uri.startsWith("data:")
    ? Buffer.from(b.uri.slice(b.uri.indexOf(",") + 1), "base64")
    : fs.readFileSync(path.join(path.dirname(file), decodeURIComponent(b.uri))));
  return { json, buffers };
}

function accessor(g, i) {
  const a = g.json.accessors[i], v = g.json.bufferViews[a.bufferView], b = g.buffers[v.buffer];
  const n = { SCALAR: 1, VEC3: 3, VEC4: 4, MAT4: 16 }[a.type];
  const [size, read, max] = { 5121: [1, "readUInt8", 255], 5123: [2, "readUInt16LE", 65535], 5125: [4, "readUInt32LE", 0], 5126: [4, "readFloatLE", 0] }[a.componentType];
  const stride = v.byteStride || size * n, base = (v.byteOffset || 0) + (a.byteOffset || 0), out = [];
  for (let e = 0; e < a.count; ++e) {
    const el = [];
    for (let c = 0; c < n; ++c) { const x = b[read](base + e * stride + c * size); el.push(a.normalized ? x / max : x); }
    out.push(el);
  }
  return out;
}

// The skinned mesh of the model: the first node with mesh and skin, its primitives in order.
function modelMesh(g) {
  const node = g.json.nodes.find((n) => n.mesh !== undefined && n.skin !== undefined), skin = g.json.skins[node.skin];
  const names = skin.joints.map((j) => (typeof g.json.nodes[j].name === "string" ? g.json.nodes[j].name : `nodes[${j}]`));
  const ibm = accessor(g, skin.inverseBindMatrices);
  const verts = [];
  for (const p of g.json.meshes[node.mesh].primitives) {
    const pos = accessor(g, p.attributes.POSITION), jts = accessor(g, p.attributes.JOINTS_0), wts = accessor(g, p.attributes.WEIGHTS_0);
    pos.forEach((x, v) => verts.push({ p: x, j: jts[v], w: wts[v] }));
  }
  return { names, ibm, verts };
}

const mat = (m, r, c) => m[4 * c + r]; // column-major
function mul(a, b) {
  const o = new Array(16).fill(0);
  for (let c = 0; c < 4; ++c) for (let r = 0; r < 4; ++r) for (let k = 0; k < 4; ++k) o[4 * c + r] += mat(a, r, k) * mat(b, k, c);
  return o;
}
const apply = (m, p) => [0, 1, 2].map((r) => mat(m, r, 0) * p[0] + mat(m, r, 1) * p[1] + mat(m, r, 2) * p[2] + mat(m, r, 3));
const qmul = (a, b) => [
  a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1], a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
  a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3], a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]];

// A rigid matrix's unit dual quaternion (columns normalised; w >= 0), Kavan et al.
function dualQuat(m) {
  const col = (c) => { const v = [mat(m, 0, c), mat(m, 1, c), mat(m, 2, c)], l = Math.hypot(...v); return v.map((x) => x / l); };
  const [x, y, z] = [col(0), col(1), col(2)];
  const R = (r, c) => [x, y, z][c][r], tr = R(0, 0) + R(1, 1) + R(2, 2);
  let q;
  if (tr > 0) { const s = 2 * Math.sqrt(1 + tr); q = [(R(2, 1) - R(1, 2)) / s, (R(0, 2) - R(2, 0)) / s, (R(1, 0) - R(0, 1)) / s, s / 4]; }
  else if (R(0, 0) > R(1, 1) && R(0, 0) > R(2, 2)) { const s = 2 * Math.sqrt(1 + R(0, 0) - R(1, 1) - R(2, 2)); q = [s / 4, (R(0, 1) + R(1, 0)) / s, (R(0, 2) + R(2, 0)) / s, (R(2, 1) - R(1, 2)) / s]; }
  else if (R(1, 1) > R(2, 2)) { const s = 2 * Math.sqrt(1 + R(1, 1) - R(0, 0) - R(2, 2)); q = [(R(0, 1) + R(1, 0)) / s, s / 4, (R(1, 2) + R(2, 1)) / s, (R(0, 2) - R(2, 0)) / s]; }
  else { const s = 2 * Math.sqrt(1 + R(2, 2) - R(0, 0) - R(1, 1)); q = [(R(0, 2) + R(2, 0)) / s, (R(1, 2) + R(2, 1)) / s, s / 4, (R(1, 0) - R(0, 1)) / s]; }
  if (q[3] < 0) q = q.map((v) => -v);
  const t = [mat(m, 0, 3), mat(m, 1, 3), mat(m, 2, 3), 0];
  return { real: q, dual: qmul(t, q).map((v) => v / 2) };
}

// Linear blend and dual quaternion positions of every vertex, from the native model matrices.
function skinAll(mesh, remap, models) {
  const palette = mesh.ibm.map((ibm, i) => mul(models.slice(16 * remap[i], 16 * remap[i] + 16), ibm));
  const dqs = palette.map(dualQuat);
  return mesh.verts.map(({ p, j, w }) => {
    const sum = w.reduce((s, x) => s + x, 0), ws = w.map((x) => x / sum);
    const lbs = [0, 0, 0];
    ws.forEach((wc, c) => apply(palette[j[c]], p).forEach((x, k) => (lbs[k] += wc * x)));
    const real = [0, 0, 0, 0], dual = [0, 0, 0, 0], first = dqs[j[0]].real;
    ws.forEach((wc, c) => {
      const d = dqs[j[c]], s = d.real.reduce((acc, x, k) => acc + x * first[k], 0) < 0 ? -wc : wc;
      for (let k = 0; k < 4; ++k) { real[k] += s * d.real[k]; dual[k] += s * d.dual[k]; }
    });
    const len = Math.hypot(...real), r = real.map((x) => x / len), d = dual.map((x) => x / len);
    const conj = [-r[0], -r[1], -r[2], r[3]];
    const rotated = qmul(qmul(r, [...p, 0]), conj), t = qmul(d, conj);
    return { lbs, dq: [0, 1, 2].map((k) => rotated[k] + 2 * t[k]), single: Math.max(...ws) > 0.999 };
  });
}

const maxDiff = (a, b, pick = () => true) => {
  if (a.length !== b.length) return Infinity;
  let d = 0;
  a.forEach((p, i) => { if (pick(i)) p.forEach((x, k) => (d = Math.max(d, Math.abs(x - b[i][k])))); });
  return d;
};

function native(archive, time) {
  return JSON.parse(execFileSync(args.positions, [archive, "0", String(time)], { encoding: "utf8", maxBuffer: 1 << 26 }));
}

// Packs a .gltf with one data: buffer into a GLB (JSON chunk, BIN chunk).
function toGlb(g, file) {
  const json = JSON.parse(JSON.stringify(g.json));
  json.buffers = [{ byteLength: g.buffers[0].length }];
  const pad = (b, fill) => Buffer.concat([b, Buffer.alloc((4 - (b.length % 4)) % 4, fill)]);
  const j = pad(Buffer.from(JSON.stringify(json)), 0x20), bin = pad(g.buffers[0], 0);
  const header = Buffer.alloc(12), jh = Buffer.alloc(8), bh = Buffer.alloc(8);
  header.write("glTF", 0);
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(12 + 8 + j.length + 8 + bin.length, 8);
  jh.writeUInt32LE(j.length, 0);
  jh.writeUInt32LE(0x4e4f534a, 4);
  bh.writeUInt32LE(bin.length, 0);
  bh.writeUInt32LE(0x004e4942, 4);
  fs.writeFileSync(file, Buffer.concat([header, jh, j, bh, bin]));
}

async function testModel(browser, label, model, time, restIsBind) {
  const archive = path.join(args.work, `${label}.ossa`);
  execFileSync(args.ossa, ["bake", model, "-o", archive, "-q"]);
  const g = loadGltf(model), mesh = modelMesh(g);
  const atTime = native(archive, time), atRest = native(archive, "rest");
  const remap = mesh.names.map((n) => atTime.names.indexOf(n));

  // What ossa view refuses, each with one line.
  const work = path.join(args.work, `${label}-bad`);
  fs.mkdirSync(work, { recursive: true });
  const variant = (name, edit) => {
    const j = JSON.parse(JSON.stringify(g.json));
    edit(j);
    const f = path.join(work, name);
    fs.writeFileSync(f, JSON.stringify(j));
    return f;
  };
  const skinJoint = g.json.skins[0].joints[g.json.skins[0].joints.length - 1];
  let r = await startView([archive, "--port", "0", "--mesh", variant("renamed.gltf", (j) => (j.nodes[skinJoint].name = "no_such_joint"))]);
  check(r.code === 1 && /renamed\.gltf: the skin's joint "no_such_joint" is not a joint of the first archive's skeleton/.test(r.stderr) &&
    r.stderr.trim().split("\n").length === 1, `${label}: ossa view --mesh refuses a skin joint the skeleton lacks`, r.stderr.trim());
  r = await startView([archive, "--port", "0", "--mesh", variant("unskinned.gltf", (j) => { delete j.skins; j.nodes.forEach((n) => delete n.skin); })]);
  check(r.code === 1 && /unskinned\.gltf: not a skinned glTF/.test(r.stderr), `${label}: ossa view --mesh refuses a glTF without a skin`, r.stderr.trim());
  r = await startView([archive, "--port", "0", "--mesh", variant("nobuffer.gltf", (j) => (j.buffers[0].uri = "missing.bin"))]);
  check(r.code === 1 && /nobuffer\.gltf: cannot read its buffer .*missing\.bin/.test(r.stderr), `${label}: ossa view --mesh refuses a model whose buffer is missing`, r.stderr.trim());

  const view = await startView([archive, "--mesh", model, "--port", "0"]);
  if (!check(view.url !== undefined && view.url.includes("&mesh=files/"), `${label}: ossa view --mesh prints the URL with the mesh`, view.url || view.stderr)) return;
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  try {
    await page.goto(view.url);
    await page.waitForFunction(() => window.ossaViewer && window.ossaViewer.loaded, null, { timeout: 30000 });
    const got = await page.evaluate((t) => {
      const v = window.ossaViewer;
      v.pause();
      v.setTime(t);
      const out = { mesh: v.mesh(), error: v.lastError };
      v.setSkinning("linear");
      out.lbs = v.skinnedPositions();
      v.setSkinning("dual-quat");
      out.dq = v.skinnedPositions();
      v.setRestPose(true);
      out.restDq = v.skinnedPositions();
      v.setSkinning("linear");
      out.restLbs = v.skinnedPositions();
      v.setRestPose(false);
      return out;
    }, time);
    check(got.error === "" && got.mesh && got.mesh.vertices === mesh.verts.length && got.mesh.joints.join() === mesh.names.join(),
      `${label}: the page reads the mesh (${mesh.verts.length} vertices, ${mesh.names.length} skin joints)`,
      got.mesh ? `${got.mesh.vertices} vertices, ${got.mesh.triangles} triangles, joints ${got.mesh.joints.length}` : got.error);
    check(!remap.includes(-1) && got.mesh && got.mesh.remap.join() === remap.join() && got.mesh.unitScale === 1,
      `${label}: each skin joint maps to the skeleton joint of its name`, got.mesh ? `remap ${got.mesh.remap.join(",")}` : "");

    const ours = skinAll(mesh, remap, atTime.models), rest = skinAll(mesh, remap, atRest.models);
    const dl = maxDiff(got.lbs, ours.map((o) => o.lbs)), dd = maxDiff(got.dq, ours.map((o) => o.dq));
    check(dl <= TOLERANCE, `${label} at ${time} s: linear blend positions equal this test's skinning`, `max |page - test| = ${dl.toExponential(2)} m`);
    check(dd <= TOLERANCE, `${label} at ${time} s: dual quaternion positions equal this test's skinning`, `max |page - test| = ${dd.toExponential(2)} m`);
    const multi = maxDiff(got.lbs, got.dq, (i) => !ours[i].single), single = maxDiff(got.lbs, got.dq, (i) => ours[i].single);
    const expected = maxDiff(ours.map((o) => o.lbs), ours.map((o) => o.dq), (i) => !ours[i].single);
    check(multi > 1e-3 && Math.abs(multi - expected) <= TOLERANCE && single <= TOLERANCE,
      `${label} at ${time} s: linear blend and dual quaternion differ where a vertex has several joints, not where it has one`,
      `max |linear - dual quaternion| ${multi.toExponential(2)} m (this test: ${expected.toExponential(2)}), single-joint vertices ${single.toExponential(2)} m`);
    const bind = mesh.verts.map((v) => v.p);
    const dr = maxDiff(got.restLbs, got.restDq), db = maxDiff(got.restLbs, bind), dt = maxDiff(got.restLbs, rest.map((o) => o.lbs));
    // The tube's inverse bind matrices are its rest pose's: there skinning gives the bind
    // positions. cesium_man's are relative to its root node (which turns Z up into Y up).
    check(dr <= TOLERANCE && (!restIsBind || db <= 1e-4) && dt <= TOLERANCE,
      `${label} at the rest pose: linear blend and dual quaternion agree${restIsBind ? ", on the bind positions" : ""}`,
      `max |linear - dual quaternion| ${dr.toExponential(2)} m, |linear - bind| ${db.toExponential(2)} m, |page - test| ${dt.toExponential(2)} m`);

    // Mesh pixels on the canvas: the mesh's orange (r well above b), none with the mesh hidden.
    const count = async () => {
      const png = await page.locator("#view").screenshot();
      return page.evaluate(async (b64) => {
        const img = new Image();
        img.src = "data:image/png;base64," + b64;
        await img.decode();
        const c = document.createElement("canvas");
        c.width = img.width;
        c.height = img.height;
        const ctx = c.getContext("2d");
        ctx.drawImage(img, 0, 0);
        const px = ctx.getImageData(0, 0, c.width, c.height).data;
        let n = 0;
        for (let i = 0; i < px.length; i += 4) if (px[i] > px[i + 2] + 50 && px[i] >= px[i + 1]) ++n;
        return n;
      }, png.toString("base64"));
    };
    await page.evaluate((t) => { window.ossaViewer.setTime(t); }, time);
    const shown = await count();
    fs.writeFileSync(path.join(args.viewer, `viewer-test-mesh-${label}.png`), await page.locator("#view").screenshot());
    // The whole page with dual quaternion skinning (docs/viewer-mesh.png is cesium_man's).
    await page.setViewportSize({ width: 1000, height: 860 });
    await page.evaluate(() => window.ossaViewer.setSkinning("dual-quat"));
    fs.writeFileSync(path.join(args.viewer, `viewer-test-mesh-page-${label}.png`), await page.screenshot());
    await page.evaluate(() => window.ossaViewer.setSkinning("linear"));
    await page.setViewportSize({ width: 1000, height: 640 });
    await page.evaluate(() => { document.getElementById("show-mesh").checked = false; window.ossaViewer.setTime(window.ossaViewer.state().time); });
    const hidden = await count();
    await page.evaluate(() => { document.getElementById("show-mesh").checked = true; });
    check(shown >= 2000 && hidden === 0, `${label}: the canvas shows the skinned mesh`, `${shown} mesh pixels, ${hidden} with the mesh hidden`);

    // The same model as a GLB (single-buffer models only) gives the same vertices.
    if (g.buffers.length === 1) {
      const glb = path.join(args.work, `${label}.glb`);
      toGlb(g, glb);
      const fromGlb = await page.evaluate(async (b64) => {
        const v = window.ossaViewer;
        await v.loadMesh(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)), "model.glb");
        v.setSkinning("linear");
        return { mesh: v.mesh(), lbs: v.skinnedPositions() };
      }, fs.readFileSync(glb).toString("base64"));
      const dg = maxDiff(fromGlb.lbs, got.lbs);
      check(fromGlb.mesh.vertices === mesh.verts.length && dg === 0, `${label}: the model as a GLB gives the same skinned vertices`, `max difference ${dg}`);
    }
    // A model the page cannot use is refused with the reason, and no mesh is left: a skin joint
    // the skeleton lacks, a POSITION accessor longer than its buffer view (both as GLBs).
    const renamed = JSON.parse(JSON.stringify(g.json)), longer = JSON.parse(JSON.stringify(g.json));
    renamed.nodes[skinJoint].name = "no_such_joint";
    const positions = longer.meshes[0].primitives[0].attributes.POSITION;
    longer.accessors[positions].count *= 1000;
    const refused = [];
    for (const [name, json, expected] of [["renamed.glb", renamed, /^renamed\.glb: the skin's joint "no_such_joint" is not a joint of the archive's skeleton$/],
      ["longer.glb", longer, new RegExp(`^longer\\.glb: primitives\\[0\\]\\.POSITION: accessors\\[${positions}\\] runs past the end of bufferViews`)]]) {
      const file = path.join(args.work, `${label}-${name}`);
      toGlb({ json, buffers: g.buffers }, file);
      const r = await page.evaluate(async ({ b64, name }) => {
        const v = window.ossaViewer;
        try { await v.loadMesh(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)), name); return { message: "loaded" }; }
        catch (e) { return { message: e.message, mesh: v.mesh(), status: document.getElementById("status").textContent }; }
      }, { b64: fs.readFileSync(file).toString("base64"), name });
      refused.push(r.message);
      check(expected.test(r.message) && r.mesh === null && r.status === r.message, `${label}: the page refuses ${name} with the reason and drops the mesh`, r.message);
    }
    check(errors.length === 0, `${label}: no script errors`, errors.join("; "));
  } finally {
    await page.close();
    await stopView(view.proc);
  }
}

async function main() {
  const browser = await chromium.launchPersistentContext(fs.mkdtempSync(path.join(args.work, "chromium-mesh-")), {
    executablePath: args.chromium,
    headless: true,
    viewport: { width: 1000, height: 640 },
    deviceScaleFactor: 1,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--use-angle=swiftshader", "--enable-unsafe-swiftshader"],
  });
  try {
    await testModel(browser, "tube", writeTube(args.work), 0.5, true);
    if (args.cesium) await testModel(browser, "cesium_man", args.cesium, 0.5, false);
    else console.log("skipped: cesium_man.gltf (the data directory's gltf/) is not there: the tube only");
  } finally {
    await browser.close();
  }
}

main()
  .catch((e) => check(false, "viewer mesh test", e.stack || String(e)))
  .finally(() => {
    console.log(`${passed} passed, ${failed} failed`);
    process.exit(failed ? 1 : 0);
  });
