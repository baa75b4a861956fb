// The ossa browser viewer: opens .ossa archives with the runtime compiled to WebAssembly
// (viewer.c through ossa_viewer.js), draws the skeleton with WebGL, plays, scrubs, blends two
// clips and colours joints by their error against the source (an errors JSON that
// `ossa view --against` serves, or an `ossa info --json` document opened by hand). No framework,
// no build step.
//
// window.ossaViewer, for scripts and the headless test (tools/viewer/test/):
//   ready                       Promise, resolved once the WebAssembly module runs
//   load(bytes, name)           adds an archive (ArrayBuffer or Uint8Array); resolves to the
//                               number of clips added, rejects with the loader's error text
//   loadUrl(url)                fetches then load()s
//   loadErrors(json)            per-joint errors (object or JSON text; docs/viewer.md)
//   reset()                     closes every archive
//   errorScale()                the error coloured red, {mm, source: "tolerance" (the bake's,
//                               from META) | "clip" (none recorded: the clip's largest),
//                               clipMax}, or null when the clip shown has no errors
//   jointColours()              each joint's error colour as drawn, [[r, g, b], ...] 0-255, or null
//   clips()                     [{name, duration (s), archive}]
//   joints()                    [{name, parent}]
//   setClip(i), setBlend(clipB, weight), setTime(seconds), setSpeed(x), play(), pause()
//   state()                     {clip, time, timeB, blendClip, weight, speed, playing}
//   jointPositions()            model-space positions of the pose shown: [[x, y, z], ...] in
//                               the skeleton's units (the runtime's float values)
//   projectedJoints()           each joint's position on the canvas, CSS pixels [[x, y], ...]
//   lastError                   text of the last failure ("" when none)
"use strict";

(function () {
  const BACKGROUND = [24 / 255, 27 / 255, 33 / 255];
  const BONE = [110 / 255, 190 / 255, 255 / 255];
  const JOINT = [1, 1, 1];
  const GRID = [48 / 255, 53 / 255, 63 / 255];

  const api = { lastError: "" };
  const $ = (id) => document.getElementById(id);
  const canvas = $("view");
  const status = $("status");

  const S = {
    module: null,
    archives: [], // names, in the order opened
    joints: [], // {name, parent}
    clips: [], // {name, duration, archive}
    clip: -1,
    blendClip: -1,
    weight: 0,
    time: 0,
    timeB: 0,
    speed: 1,
    playing: true,
    positions: null, // Float32Array [3 * joints]
    errors: null, // {clips: [{index, joint_max_mm, max_mm}], ...} for the first archive
    camera: { yaw: 0.6, pitch: 0.25, distance: 3, target: [0, 1, 0], framed: false, follow: true },
    mvp: null,
    lastFrame: null,
  };

  function setStatus(text, isError) {
    status.textContent = text;
    status.className = isError ? "error" : "";
    api.lastError = isError ? text : "";
  }

  // --- WebAssembly ------------------------------------------------------------------------------
  const M = () => S.module;
  const cstr = (ptr) => M().UTF8ToString(ptr);

  function refreshScene() {
    const m = M();
    const n = m._ossa_viewer_joint_count();
    S.joints = [];
    for (let j = 0; j < n; ++j) S.joints.push({ name: cstr(m._ossa_viewer_joint_name(j)), parent: m._ossa_viewer_joint_parent(j) });
    S.clips = [];
    for (let c = 0; c < m._ossa_viewer_clip_count(); ++c)
      S.clips.push({ name: cstr(m._ossa_viewer_clip_name(c)) || `clip ${c}`, duration: m._ossa_viewer_clip_duration(c), archive: m._ossa_viewer_clip_archive(c) });
    if (S.clip < 0 && S.clips.length) S.clip = 0;
    fillClipLists();
  }

  async function load(bytes, name) {
    await api.ready;
    const data = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
    const m = M();
    const ptr = m._ossa_viewer_alloc(data.length);
    if (!ptr) throw failure(`${name || "file"}: out of memory`);
    m.HEAPU8.set(data, ptr);
    const added = m._ossa_viewer_add(ptr, data.length); // takes the bytes, frees them on error
    if (added < 0) throw failure(`${name || "file"}: ${cstr(m._ossa_viewer_error())}`);
    const first = S.joints.length === 0;
    refreshScene();
    if (first) S.camera.framed = false;
    S.archives.push(name || "archive");
    const plural = (n, what) => `${n} ${what}${n === 1 ? "" : "s"}`;
    setStatus(`${S.archives.join(", ")}: ${plural(S.clips.length, "clip")}, ${plural(S.joints.length, "joint")}`, false);
    evaluate();
    return added;
  }

  function failure(text) {
    setStatus(text, true);
    return new Error(text);
  }

  function reset() {
    if (M()) M()._ossa_viewer_reset();
    Object.assign(S, { archives: [], joints: [], clips: [], clip: -1, blendClip: -1, weight: 0, time: 0, timeB: 0, positions: null, errors: null });
    $("weight").value = 0;
    showErrorsLegend();
    fillClipLists();
    setStatus("Open or drop .ossa files.", false);
  }

  // Poses the skeleton at the current state; keeps the positions in S.positions.
  function evaluate() {
    if (!M() || S.clip < 0) return false;
    const a = S.clips[S.clip];
    S.time = Math.min(Math.max(S.time, 0), a.duration);
    const blend = S.blendClip >= 0 && S.weight > 0;
    // The second clip runs in step with the first: the same share of its duration.
    S.timeB = blend ? (S.time / a.duration) * S.clips[S.blendClip].duration : 0;
    const m = M();
    if (m._ossa_viewer_evaluate(S.clip, S.time, blend ? S.blendClip : -1, S.timeB, blend ? S.weight : 0) !== 0) {
      setStatus(cstr(m._ossa_viewer_error()), true);
      return false;
    }
    const ptr = m._ossa_viewer_positions();
    S.positions = m.HEAPF32.slice(ptr >> 2, (ptr >> 2) + 3 * S.joints.length);
    return true;
  }

  // --- Controls ---------------------------------------------------------------------------------
  function fillClipLists() {
    const a = $("clip"), b = $("clip-b");
    a.innerHTML = "";
    b.innerHTML = "";
    b.add(new Option("none", "-1"));
    S.clips.forEach((c, i) => {
      const label = `${c.name} (${c.duration.toFixed(2)} s)`;
      a.add(new Option(label, String(i)));
      b.add(new Option(label, String(i)));
    });
    a.value = String(S.clip);
    b.value = String(S.blendClip);
    syncControls();
  }

  function syncControls() {
    const d = S.clip >= 0 ? S.clips[S.clip].duration : 1;
    const t = $("time");
    t.max = d;
    t.step = d / 1000;
    t.value = S.time;
    $("time-text").textContent = `${S.time.toFixed(3)} s`;
    $("play").textContent = S.playing ? "Pause" : "Play";
    $("speed").value = S.speed;
    $("speed-text").textContent = `${S.speed.toFixed(2)}x`;
    $("weight").value = S.weight;
    $("weight-text").textContent = S.weight.toFixed(2);
  }

  $("clip").onchange = (e) => api.setClip(Number(e.target.value));
  $("clip-b").onchange = (e) => api.setBlend(Number(e.target.value), S.blendClip < 0 && S.weight === 0 ? 0.5 : S.weight);
  $("weight").oninput = (e) => api.setBlend(S.blendClip, Number(e.target.value));
  $("time").oninput = (e) => { S.playing = false; api.setTime(Number(e.target.value)); };
  $("speed").oninput = (e) => api.setSpeed(Number(e.target.value));
  $("play").onclick = () => (S.playing ? api.pause() : api.play());
  $("reset").onclick = () => reset();
  $("show-errors").onchange = () => draw();

  async function openFiles(files) {
    for (const f of files) {
      try {
        const bytes = await f.arrayBuffer();
        if (/\.json$/i.test(f.name)) api.loadErrors(new TextDecoder().decode(bytes));
        else await load(bytes, f.name);
      } catch (e) {
        setStatus(e.message, true);
        return;
      }
    }
  }
  $("file").onchange = (e) => { openFiles(Array.from(e.target.files)); e.target.value = ""; };
  const stage = $("stage");
  stage.addEventListener("dragover", (e) => { e.preventDefault(); stage.classList.add("dragging"); });
  stage.addEventListener("dragleave", () => stage.classList.remove("dragging"));
  stage.addEventListener("drop", (e) => {
    e.preventDefault();
    stage.classList.remove("dragging");
    openFiles(Array.from(e.dataTransfer.files));
  });

  // --- Errors -----------------------------------------------------------------------------------
  // `json`: the errors document of `ossa view --against` ({clips: [{index, joint_max_mm}]}),
  // or an `ossa info --against --json` document (its animations' errors.vertices).
  function loadErrors(json) {
    let doc;
    try {
      doc = typeof json === "string" ? JSON.parse(json) : json;
    } catch (e) {
      throw failure(`errors: not JSON (${e.message})`);
    }
    if (doc && Array.isArray(doc.animations))
      doc = {
        against: "the source",
        measure: "virtual vertices 0.03 m from each joint (ossa info --json)",
        clips: doc.animations.map((a, i) => ({ index: i, name: a.name, ...((a.errors && a.errors.vertices) || {}) })),
      };
    if (!doc || !Array.isArray(doc.clips)) throw failure("errors: neither an errors document of ossa view nor one of ossa info --json");
    S.errors = doc;
    showErrorsLegend();
    draw();
  }

  // Per-joint errors (mm) of the clip shown, or null: the first archive's clips only, and only
  // when the document has one value per joint.
  function clipErrors() {
    if (!S.errors || S.clip < 0 || S.clips[S.clip].archive !== 0) return null;
    const e = S.errors.clips.find((c) => c.index === S.clip);
    return e && Array.isArray(e.joint_max_mm) && e.joint_max_mm.length === S.joints.length ? e : null;
  }

  // The error that shows red: the bake's tolerance (META `tolerance=` of the first archive, whose
  // clips the errors are for) in mm, else, for an archive that records none (baked before ossa
  // wrote it, or lossless), the clip's largest error. {mm, source: "tolerance" | "clip", clipMax}.
  function errorScale(e) {
    const clipMax = Math.max(...e.joint_max_mm);
    const metres = M() && S.archives.length ? M()._ossa_viewer_archive_tolerance(0) : 0;
    if (metres > 0) return { mm: metres * 1000, source: "tolerance", clipMax };
    return { mm: clipMax > 0 ? clipMax : 1, source: "clip", clipMax };
  }

  function showErrorsLegend() {
    const e = clipErrors();
    $("errors-legend").style.display = S.errors ? "block" : "none";
    if (!S.errors) return;
    if (!e) {
      $("errors-max").textContent = "";
      $("errors-scale").textContent = "";
      $("errors-what").textContent = "no errors for this clip (they are for the first archive's clips)";
      $("worst").innerHTML = "";
      return;
    }
    const scale = errorScale(e);
    $("errors-max").textContent = `${scale.mm.toPrecision(3)} mm`;
    $("errors-scale").textContent = scale.source === "tolerance"
      ? `red at the bake's tolerance and above; this clip's largest: ${scale.clipMax.toPrecision(3)} mm`
      : "red at this clip's largest error: the archive records no tolerance (baked before ossa wrote it, or lossless)";
    $("errors-what").textContent = `against ${S.errors.against || "the source"}, ${S.errors.measure || ""}; worst joints:`;
    const worst = e.joint_max_mm.map((v, j) => [v, j]).sort((x, y) => y[0] - x[0]).slice(0, 5);
    $("worst").innerHTML = "";
    for (const [v, j] of worst) {
      const li = document.createElement("li");
      li.textContent = `${S.joints[j].name}: ${v.toPrecision(3)} mm`;
      $("worst").appendChild(li);
    }
  }

  // Green (no error) through yellow (half the scale) to red (the scale and above).
  function ramp(x) {
    x = Math.min(Math.max(x, 0), 1);
    const g = [60, 200, 90], y = [240, 220, 60], r = [240, 60, 50];
    const [p, q, t] = x < 0.5 ? [g, y, x * 2] : [y, r, x * 2 - 1];
    return p.map((v, i) => (v + (q[i] - v) * t) / 255);
  }

  // Each joint's colour as drawn ([r, g, b] in 0-1), or null when no error colours show.
  function jointColours() {
    const errors = $("show-errors").checked ? clipErrors() : null;
    if (!errors) return null;
    const scale = errorScale(errors).mm;
    return errors.joint_max_mm.map((v) => ramp(v / scale));
  }

  // --- WebGL ------------------------------------------------------------------------------------
  const gl = canvas.getContext("webgl", { antialias: false, preserveDrawingBuffer: true });
  let program = null, buffer = null;
  if (!gl) setStatus("WebGL is not available in this browser: the skeleton cannot be drawn.", true);
  else {
    const vs = `attribute vec3 p; attribute vec3 c; uniform mat4 mvp; uniform float size; varying vec3 vc;
      void main() { gl_Position = mvp * vec4(p, 1.0); gl_PointSize = size; vc = c; }`;
    const fs = `precision mediump float; varying vec3 vc; void main() { gl_FragColor = vec4(vc, 1.0); }`;
    const shader = (type, src) => {
      const s = gl.createShader(type);
      gl.shaderSource(s, src);
      gl.compileShader(s);
      return s;
    };
    program = gl.createProgram();
    gl.attachShader(program, shader(gl.VERTEX_SHADER, vs));
    gl.attachShader(program, shader(gl.FRAGMENT_SHADER, fs));
    gl.linkProgram(program);
    buffer = gl.createBuffer();
  }

  const sub = (a, b) => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
  const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
  const norm = (a) => { const l = Math.hypot(a[0], a[1], a[2]) || 1; return [a[0] / l, a[1] / l, a[2] / l]; };
  const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];

  // Column-major 4x4 products and the camera's view-projection.
  function mul(a, b) {
    const o = new Float32Array(16);
    for (let c = 0; c < 4; ++c)
      for (let r = 0; r < 4; ++r) {
        let s = 0;
        for (let k = 0; k < 4; ++k) s += a[k * 4 + r] * b[c * 4 + k];
        o[c * 4 + r] = s;
      }
    return o;
  }

  function cameraMatrix(aspect) {
    const cam = S.camera;
    const eye = [
      cam.target[0] + cam.distance * Math.cos(cam.pitch) * Math.sin(cam.yaw),
      cam.target[1] + cam.distance * Math.sin(cam.pitch),
      cam.target[2] + cam.distance * Math.cos(cam.pitch) * Math.cos(cam.yaw),
    ];
    const f = norm(sub(cam.target, eye)), s = norm(cross(f, [0, 1, 0])), u = cross(s, f);
    const view = new Float32Array([s[0], u[0], -f[0], 0, s[1], u[1], -f[1], 0, s[2], u[2], -f[2], 0, -dot(s, eye), -dot(u, eye), dot(f, eye), 1]);
    const fovy = (40 * Math.PI) / 180, near = cam.distance / 100, far = cam.distance * 100;
    const t = 1 / Math.tan(fovy / 2);
    const proj = new Float32Array([t / aspect, 0, 0, 0, 0, t, 0, 0, 0, 0, (far + near) / (near - far), -1, 0, 0, (2 * far * near) / (near - far), 0]);
    return mul(proj, view);
  }

  // Frames the current pose: target at its centre, distance so that it fills the view.
  function frame() {
    if (!S.positions || !S.joints.length) return;
    const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
    for (let j = 0; j < S.joints.length; ++j)
      for (let c = 0; c < 3; ++c) {
        lo[c] = Math.min(lo[c], S.positions[3 * j + c]);
        hi[c] = Math.max(hi[c], S.positions[3 * j + c]);
      }
    const radius = Math.max(Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]) / 2, 1e-3);
    S.camera.target = [(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2];
    S.camera.distance = (radius / Math.sin((20 * Math.PI) / 180)) * 1.25;
    S.camera.ground = lo[1];
    S.camera.radius = radius;
    S.camera.framed = true;
  }

  function resize() {
    const dpr = window.devicePixelRatio || 1;
    const w = Math.max(1, Math.round(canvas.clientWidth * dpr)), h = Math.max(1, Math.round(canvas.clientHeight * dpr));
    if (canvas.width !== w || canvas.height !== h) {
      canvas.width = w;
      canvas.height = h;
    }
  }

  function draw() {
    if (!gl) return;
    resize();
    gl.viewport(0, 0, canvas.width, canvas.height);
    gl.clearColor(BACKGROUND[0], BACKGROUND[1], BACKGROUND[2], 1);
    gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    if (!S.positions) return;
    if (!S.camera.framed) frame();
    S.mvp = cameraMatrix(canvas.width / canvas.height);
    const v = []; // x y z r g b
    const push = (p, c) => v.push(p[0], p[1], p[2], c[0], c[1], c[2]);
    // The camera follows the skeleton over the ground (a walk moves forward).
    const cam = S.camera;
    if (cam.follow) {
      const n = S.joints.length;
      let x = 0, z = 0;
      for (let j = 0; j < n; ++j) { x += S.positions[3 * j]; z += S.positions[3 * j + 2]; }
      cam.target[0] = x / n;
      cam.target[2] = z / n;
    }
    // Ground grid under the skeleton, fixed in the world (it scrolls as the skeleton moves),
    // about four times the skeleton's size.
    const step = Math.pow(10, Math.round(Math.log10(cam.radius / 5))), half = 20 * step, y = cam.ground;
    const x0 = Math.round(cam.target[0] / step) * step, z0 = Math.round(cam.target[2] / step) * step;
    for (let i = -20; i <= 20; ++i) {
      const a = x0 + i * step, b = z0 + i * step;
      push([a, y, z0 - half], GRID); push([a, y, z0 + half], GRID);
      push([x0 - half, y, b], GRID); push([x0 + half, y, b], GRID);
    }
    const gridCount = v.length / 6;
    const colours = jointColours();
    const colour = (j, base) => (colours ? colours[j] : base);
    const P = (j) => [S.positions[3 * j], S.positions[3 * j + 1], S.positions[3 * j + 2]];
    for (let j = 0; j < S.joints.length; ++j) {
      const p = S.joints[j].parent;
      if (p >= 0) { push(P(p), colour(j, BONE)); push(P(j), colour(j, BONE)); }
    }
    const lineCount = v.length / 6;
    for (let j = 0; j < S.joints.length; ++j) push(P(j), colour(j, JOINT));
    gl.useProgram(program);
    gl.bindBuffer(gl.ARRAY_BUFFER, buffer);
    gl.bufferData(gl.ARRAY_BUFFER, new Float32Array(v), gl.STREAM_DRAW);
    const lp = gl.getAttribLocation(program, "p"), lc = gl.getAttribLocation(program, "c");
    gl.enableVertexAttribArray(lp);
    gl.enableVertexAttribArray(lc);
    gl.vertexAttribPointer(lp, 3, gl.FLOAT, false, 24, 0);
    gl.vertexAttribPointer(lc, 3, gl.FLOAT, false, 24, 12);
    gl.uniformMatrix4fv(gl.getUniformLocation(program, "mvp"), false, S.mvp);
    gl.uniform1f(gl.getUniformLocation(program, "size"), 5 * (window.devicePixelRatio || 1));
    gl.drawArrays(gl.LINES, 0, gridCount);
    gl.drawArrays(gl.LINES, gridCount, lineCount - gridCount);
    gl.drawArrays(gl.POINTS, lineCount, S.joints.length);
  }

  function tick(now) {
    const dt = S.lastFrame === null ? 0 : Math.min((now - S.lastFrame) / 1000, 0.25);
    S.lastFrame = now;
    if (S.playing && S.clip >= 0) {
      const d = S.clips[S.clip].duration;
      S.time = (S.time + dt * S.speed) % d;
      evaluate();
      syncControls();
    }
    draw();
    requestAnimationFrame(tick);
  }

  // Orbit (drag), zoom (wheel), frame (double-click).
  let drag = null;
  canvas.addEventListener("pointerdown", (e) => { drag = [e.clientX, e.clientY]; canvas.setPointerCapture(e.pointerId); });
  canvas.addEventListener("pointerup", () => (drag = null));
  canvas.addEventListener("pointermove", (e) => {
    if (!drag) return;
    S.camera.yaw -= (e.clientX - drag[0]) * 0.01;
    S.camera.pitch = Math.min(1.5, Math.max(-1.5, S.camera.pitch + (e.clientY - drag[1]) * 0.01));
    drag = [e.clientX, e.clientY];
  });
  canvas.addEventListener("wheel", (e) => { e.preventDefault(); S.camera.distance *= Math.exp(e.deltaY * 0.001); }, { passive: false });
  canvas.addEventListener("dblclick", () => frame());
  $("follow").onchange = (e) => { S.camera.follow = e.target.checked; };

  // --- API --------------------------------------------------------------------------------------
  Object.assign(api, {
    load,
    async loadUrl(url) {
      const r = await fetch(url);
      if (!r.ok) throw failure(`${url}: ${r.status} ${r.statusText}`);
      // The file's name as shown: the URL's last segment decoded (as it is when that is not
      // UTF-8 once decoded, which decodeURIComponent refuses).
      const last = url.split("/").pop();
      let name = last;
      try { name = decodeURIComponent(last); } catch { /* keep the encoded name */ }
      return load(await r.arrayBuffer(), name);
    },
    loadErrors,
    reset,
    errorScale() {
      const e = clipErrors();
      return e ? errorScale(e) : null;
    },
    jointColours() {
      const c = jointColours();
      return c && c.map((rgb) => rgb.map((v) => Math.round(v * 255)));
    },
    clips: () => S.clips.map((c) => ({ ...c })),
    joints: () => S.joints.map((j) => ({ ...j })),
    setClip(i) {
      if (!(i >= 0 && i < S.clips.length)) throw failure(`no clip ${i}`);
      S.clip = i;
      S.time = Math.min(S.time, S.clips[i].duration);
      evaluate();
      showErrorsLegend();
      syncControls();
      draw();
    },
    setBlend(clipB, weight) {
      if (!(clipB >= -1 && clipB < S.clips.length)) throw failure(`no clip ${clipB}`);
      S.blendClip = clipB;
      S.weight = Math.min(Math.max(Number(weight) || 0, 0), 1);
      $("clip-b").value = String(clipB);
      evaluate();
      syncControls();
      draw();
    },
    setTime(t) {
      S.time = Number(t);
      evaluate();
      syncControls();
      draw();
    },
    setSpeed(x) {
      S.speed = Math.max(0, Number(x));
      syncControls();
    },
    play() { S.playing = true; syncControls(); },
    pause() { S.playing = false; syncControls(); },
    state: () => ({ clip: S.clip, time: S.time, timeB: S.timeB, blendClip: S.blendClip, weight: S.weight, speed: S.speed, playing: S.playing }),
    jointPositions() {
      evaluate();
      const out = [];
      for (let j = 0; S.positions && j < S.joints.length; ++j) out.push([S.positions[3 * j], S.positions[3 * j + 1], S.positions[3 * j + 2]]);
      return out;
    },
    projectedJoints() {
      draw();
      const w = canvas.clientWidth, h = canvas.clientHeight, m = S.mvp, out = [];
      for (let j = 0; m && j < S.joints.length; ++j) {
        const p = [S.positions[3 * j], S.positions[3 * j + 1], S.positions[3 * j + 2], 1];
        const c = [0, 1, 2, 3].map((r) => m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r]);
        out.push([((c[0] / c[3] + 1) / 2) * w, ((1 - c[1] / c[3]) / 2) * h]);
      }
      return out;
    },
  });

  api.ready = createOssaViewerModule().then((m) => {
    S.module = m;
  });
  window.ossaViewer = api;

  // ?file=URL (repeatable) and ?errors=URL: what `ossa view` serves.
  api.ready
    .then(async () => {
      const q = new URLSearchParams(location.search);
      for (const url of q.getAll("file")) await api.loadUrl(url);
      const errors = q.get("errors");
      if (errors) {
        const r = await fetch(errors);
        if (!r.ok) throw failure(`${errors}: ${r.status} ${r.statusText}`);
        loadErrors(await r.text());
      }
      api.loaded = true;
    })
    .catch((e) => {
      setStatus(e.message || String(e), true);
      api.loaded = true;
    });
  requestAnimationFrame(tick);
})();
