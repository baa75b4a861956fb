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
//   loadMeshUrl(url)            a skinned glTF/GLB (?mesh=URL): skinned by the runtime each frame;
//                               resolves to its vertex count, rejects with the reason
//   loadMesh(bytes, name)       the same from bytes (a .glb, or a .gltf with data: buffers)
//   mesh()                      {name, vertices, triangles, joints: [skin joint names], remap:
//                               [skeleton joint of each], unitScale, hasNormals, method}, or null
//   setSkinning(m)              "linear" or "dual-quat"
//   setRestPose(on)             shows the skeleton's rest pose instead of the clip
//   skinnedPositions()          the mesh's skinned positions as drawn, [[x, y, z], ...]
//   modelMatrices()             each joint's model-space matrix, [[16 floats column-major], ...]
//   lastError                   text of the last failure ("" when none)
"use strict";

(function () {
  const BACKGROUND = [24 / 255, 27 / 255, 33 / 255];
  const BONE = [110 / 255, 190 / 255, 255 / 255];
  const JOINT = [1, 1, 1];
  const MESH = [215 / 255, 150 / 255, 95 / 255];
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
    restPose: false,
    mesh: null, // {name, vertices, indices (Uint32Array), joints (skin joint names), remap, hasNormals, unitScale}
    method: 0, // 0 linear blend, 1 dual quaternion (ossa_skinning_method)
    skinned: null, // Float32Array [3 * vertices]
    skinnedNormals: null,
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
    Object.assign(S, { archives: [], joints: [], clips: [], clip: -1, blendClip: -1, weight: 0, time: 0, timeB: 0, positions: null, errors: null,
      mesh: null, skinned: null, skinnedNormals: null });
    showMesh();
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
    const rc = S.restPose ? m._ossa_viewer_evaluate_rest()
      : m._ossa_viewer_evaluate(S.clip, S.time, blend ? S.blendClip : -1, S.timeB, blend ? S.weight : 0);
    if (rc !== 0) {
      setStatus(cstr(m._ossa_viewer_error()), true);
      return false;
    }
    const ptr = m._ossa_viewer_positions();
    S.positions = m.HEAPF32.slice(ptr >> 2, (ptr >> 2) + 3 * S.joints.length);
    return skin();
  }

  // Skins the mesh (if any) by the pose just evaluated, with the runtime's skinning jobs.
  function skin() {
    const m = M();
    if (!S.mesh || !m._ossa_viewer_mesh_vertex_count()) return true;
    if (m._ossa_viewer_mesh_skin(S.method) !== 0) {
      setStatus(`${S.mesh.name}: ${cstr(m._ossa_viewer_error())}`, true);
      return false;
    }
    const n = 3 * S.mesh.vertices, p = m._ossa_viewer_mesh_positions() >> 2, q = m._ossa_viewer_mesh_normals() >> 2;
    S.skinned = m.HEAPF32.slice(p, p + n);
    S.skinnedNormals = q ? m.HEAPF32.slice(q, q + n) : null;
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
  $("skinning").onchange = (e) => api.setSkinning(e.target.value);
  $("rest-pose").onchange = (e) => api.setRestPose(e.target.checked);
  $("show-mesh").onchange = () => { S.camera.framed = false; draw(); };

  async function openFiles(files) {
    for (const f of files) {
      try {
        const bytes = await f.arrayBuffer();
        if (/\.json$/i.test(f.name)) api.loadErrors(new TextDecoder().decode(bytes));
        else if (/\.(gltf|glb)$/i.test(f.name)) await loadMesh(bytes, f.name, location.href);
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

  // --- Skinned mesh (glTF 2.0, .gltf or .glb) ----------------------------------------------------
  // The page reads the mesh itself (the importers are native); the runtime skins it. Read: the
  // first node with a mesh and a skin, its triangle primitives with POSITION, JOINTS_0 and
  // WEIGHTS_0 (NORMAL if every one has it), the skin's joints and inverseBindMatrices. The mesh
  // node's own transform is ignored, as the spec says for skinned meshes (section "Skins"):
  // vertices are in the bind space the inverse bind matrices map from.
  const COMPONENTS = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT2: 4, MAT3: 9, MAT4: 16 };
  const UBYTE = 5121, USHORT = 5123, UINT = 5125, FLOAT = 5126;
  const COMPONENT_TYPES = { // size, DataView getter, normalisation divisor
    5120: [1, "getInt8", 127], 5121: [1, "getUint8", 255], 5122: [2, "getInt16", 32767],
    5123: [2, "getUint16", 65535], 5125: [4, "getUint32", 0], 5126: [4, "getFloat32", 0],
  };

  // {json, bin}: a GLB's JSON and BIN chunks (spec 4.4), or a .gltf's JSON.
  function gltfDocument(bytes) {
    const u8 = new Uint8Array(bytes), dv = new DataView(u8.buffer, u8.byteOffset, u8.byteLength);
    if (u8.length >= 12 && dv.getUint32(0, true) === 0x46546c67) { // "glTF"
      if (dv.getUint32(4, true) !== 2) throw new Error(`GLB version ${dv.getUint32(4, true)}, expected 2`);
      const total = Math.min(dv.getUint32(8, true), u8.length);
      let json = null, bin = null;
      for (let at = 12; at + 8 <= total;) {
        const length = dv.getUint32(at, true), type = dv.getUint32(at + 4, true), start = at + 8;
        if (start + length > total) throw new Error(`GLB chunk at byte ${at} runs past the end of the file`);
        if (type === 0x4e4f534a && !json) json = new TextDecoder().decode(u8.subarray(start, start + length));
        else if (type === 0x004e4942 && !bin) bin = u8.subarray(start, start + length);
        at = start + length;
      }
      if (!json) throw new Error("GLB without a JSON chunk");
      return { json: JSON.parse(json), bin };
    }
    return { json: JSON.parse(new TextDecoder().decode(u8)), bin: null };
  }

  async function gltfBuffers(doc, baseUrl) {
    const out = [];
    for (const [i, b] of (doc.json.buffers || []).entries()) {
      let data;
      if (b.uri === undefined) {
        if (i !== 0 || !doc.bin) throw new Error(`buffers[${i}] has no uri and is not a GLB's BIN chunk`);
        data = doc.bin;
      } else if (b.uri.startsWith("data:")) {
        const comma = b.uri.indexOf(",");
        if (comma < 0 || !/;base64$/.test(b.uri.slice(0, comma))) throw new Error(`buffers[${i}]: a data URI that is not base64`);
        data = Uint8Array.from(atob(b.uri.slice(comma + 1)), (c) => c.charCodeAt(0));
      } else {
        const url = new URL(b.uri, baseUrl);
        const r = await fetch(url);
        if (!r.ok) throw new Error(`buffers[${i}] ${b.uri}: ${r.status} ${r.statusText}`);
        data = new Uint8Array(await r.arrayBuffer());
      }
      if (!(data.length >= (b.byteLength || 0))) throw new Error(`buffers[${i}] holds ${data.length} bytes, byteLength says ${b.byteLength}`);
      out.push(data);
    }
    return out;
  }

  // Accessor `index` as a Float64Array of count * components values (normalised integers as
  // the spec says; float and unsigned integers as they are), after checking its type (one of
  // `types`), its component type (one of `components`) and that it fits its view and buffer.
  function readAccessor(json, buffers, index, types, components, what) {
    const a = (json.accessors || [])[index];
    if (!a) throw new Error(`${what}: no accessors[${index}]`);
    const n = COMPONENTS[a.type], ct = COMPONENT_TYPES[a.componentType];
    if (!n || !ct || !types.includes(a.type) || !components.includes(a.componentType))
      throw new Error(`${what}: accessors[${index}] is ${a.type} of component type ${a.componentType}, expected ${types.join(" or ")} of ${components.join(" or ")}`);
    if (a.sparse) throw new Error(`${what}: accessors[${index}] is sparse (not read by the viewer)`);
    const count = a.count;
    if (!Number.isInteger(count) || count < 1) throw new Error(`${what}: accessors[${index}].count is not an integer >= 1`);
    if (a.bufferView === undefined) return new Float64Array(count * n); // all zeros (spec 3.6.2.3)
    const v = (json.bufferViews || [])[a.bufferView], data = v && buffers[v.buffer];
    if (!data) throw new Error(`${what}: bufferViews[${a.bufferView}] or its buffer is missing`);
    const [size, get, norm] = ct, stride = v.byteStride || size * n;
    const viewStart = v.byteOffset || 0, viewEnd = viewStart + v.byteLength, start = viewStart + (a.byteOffset || 0);
    if (!Number.isInteger(viewEnd) || !Number.isInteger(start) || !Number.isInteger(stride) || viewEnd > data.length ||
        start + (count - 1) * stride + size * n > viewEnd)
      throw new Error(`${what}: accessors[${index}] runs past the end of bufferViews[${a.bufferView}] or its buffer`);
    const out = new Float64Array(count * n);
    const dv = new DataView(data.buffer, data.byteOffset, data.byteLength);
    const scale = a.normalized && norm ? norm : 0;
    for (let i = 0; i < count; ++i)
      for (let c = 0; c < n; ++c) {
        const x = dv[get](start + i * stride + c * size, true);
        out[i * n + c] = scale ? Math.max(x / scale, -1) : x;
      }
    return out;
  }

  // The skinned mesh of a glTF document, mapped to the skeleton's joints by name (the importer
  // names a joint after its node, "nodes[N]" when the node has no name).
  async function readMesh(bytes, name, baseUrl) {
    const doc = gltfDocument(bytes), json = doc.json, nodes = json.nodes || [];
    const nodeIndex = nodes.findIndex((n) => n && n.mesh !== undefined && n.skin !== undefined);
    if (nodeIndex < 0) throw new Error("no node has both a mesh and a skin: not a skinned glTF");
    const node = nodes[nodeIndex], skinDef = (json.skins || [])[node.skin], meshDef = (json.meshes || [])[node.mesh];
    if (!skinDef || !meshDef || !Array.isArray(skinDef.joints) || !skinDef.joints.length)
      throw new Error(`nodes[${nodeIndex}]: its skin or mesh is missing or has no joints`);
    const prims = (meshDef.primitives || []).filter((p) => (p.mode === undefined || p.mode === 4) && p.attributes &&
      p.attributes.POSITION !== undefined && p.attributes.JOINTS_0 !== undefined && p.attributes.WEIGHTS_0 !== undefined);
    if (!prims.length) throw new Error(`meshes[${node.mesh}] has no triangle primitive with POSITION, JOINTS_0 and WEIGHTS_0`);
    const jointNames = skinDef.joints.map((j) => (nodes[j] && typeof nodes[j].name === "string" ? nodes[j].name : `nodes[${j}]`));
    const byName = new Map();
    S.joints.forEach((j, i) => { if (!byName.has(j.name)) byName.set(j.name, i); });
    const remap = jointNames.map((n) => byName.get(n));
    const missing = remap.indexOf(undefined);
    if (missing >= 0) throw new Error(`the skin's joint "${jointNames[missing]}" is not a joint of the archive's skeleton`);
    const buffers = await gltfBuffers(doc, baseUrl);
    const jc = skinDef.joints.length;
    const ibm = skinDef.inverseBindMatrices === undefined ? null : readAccessor(json, buffers, skinDef.inverseBindMatrices, ["MAT4"], [FLOAT], "inverseBindMatrices");
    if (ibm && ibm.length < 16 * jc) throw new Error(`inverseBindMatrices holds ${ibm.length / 16} matrices for ${jc} joints`);
    const hasNormals = prims.every((p) => p.attributes.NORMAL !== undefined);
    const parts = prims.map((p, i) => {
      const at = (k, types, components) => readAccessor(json, buffers, p.attributes[k], types, components, `primitives[${i}].${k}`);
      const pos = at("POSITION", ["VEC3"], [FLOAT]), n = pos.length / 3;
      // Spec 3.7.3.3: joints unsigned byte or short, weights float or normalised unsigned.
      const part = { pos, n, joints: at("JOINTS_0", ["VEC4"], [UBYTE, USHORT]), weights: at("WEIGHTS_0", ["VEC4"], [FLOAT, UBYTE, USHORT]),
        normals: hasNormals ? at("NORMAL", ["VEC3"], [FLOAT]) : null };
      if (part.joints.length !== 4 * n || part.weights.length !== 4 * n || (part.normals && part.normals.length !== 3 * n))
        throw new Error(`primitives[${i}]: its attributes have different counts`);
      part.indices = p.indices === undefined ? Float64Array.from({ length: n }, (_, k) => k) : readAccessor(json, buffers, p.indices, ["SCALAR"], [UBYTE, USHORT, UINT], `primitives[${i}].indices`);
      if (part.indices.some((k) => k >= n)) throw new Error(`primitives[${i}]: an index is past its ${n} vertices`);
      return part;
    });
    return { name, jointNames, remap, ibm, hasNormals, parts };
  }

  // Hands the mesh to the runtime once: bind positions (and normals), 4 joints and 3 weights per
  // vertex (the weights normalised: the 4th is 1 minus the others' sum), the remap and the
  // inverse bind matrices, positions and translations brought to the archive's stored unit
  // (a glTF is in metres, spec 3.4; an archive of ossa bake stores metres too).
  function setMesh(mesh) {
    const m = M();
    const vertices = mesh.parts.reduce((s, p) => s + p.n, 0), jc = mesh.remap.length;
    const unitScale = m._ossa_viewer_archive_unit_scale(0) || 1, k = 1 / unitScale;
    if (m._ossa_viewer_mesh_begin(vertices, jc, mesh.hasNormals ? 1 : 0) !== 0) throw new Error(cstr(m._ossa_viewer_error()));
    const buf = (which) => m._ossa_viewer_mesh_buffer(which);
    const pos = new Float32Array(m.HEAPF32.buffer, buf(0), 3 * vertices), nrm = mesh.hasNormals ? new Float32Array(m.HEAPF32.buffer, buf(1), 3 * vertices) : null;
    const jts = new Uint16Array(m.HEAPU8.buffer, buf(2), 4 * vertices), wts = new Float32Array(m.HEAPF32.buffer, buf(3), 3 * vertices);
    const indices = [];
    let base = 0;
    for (const p of mesh.parts) {
      for (let v = 0; v < p.n; ++v) {
        const o = base + v;
        for (let c = 0; c < 3; ++c) {
          pos[3 * o + c] = p.pos[3 * v + c] * k;
          if (nrm) nrm[3 * o + c] = p.normals[3 * v + c];
        }
        let sum = 0;
        for (let c = 0; c < 4; ++c) sum += Math.max(p.weights[4 * v + c], 0);
        for (let c = 0; c < 4; ++c) {
          jts[4 * o + c] = p.joints[4 * v + c];
          if (c < 3) wts[3 * o + c] = sum > 0 ? Math.max(p.weights[4 * v + c], 0) / sum : c === 0 ? 1 : 0;
        }
      }
      for (let i = 0; i + 2 < p.indices.length; i += 3) indices.push(base + p.indices[i], base + p.indices[i + 1], base + p.indices[i + 2]);
      base += p.n;
    }
    new Uint16Array(m.HEAPU8.buffer, buf(4), jc).set(mesh.remap);
    const ibm = new Float32Array(m.HEAPF32.buffer, buf(5), 16 * jc);
    for (let j = 0; j < jc; ++j)
      for (let e = 0; e < 16; ++e) ibm[16 * j + e] = (mesh.ibm ? mesh.ibm[16 * j + e] : e % 5 === 0 ? 1 : 0) * (e >= 12 && e < 15 ? k : 1);
    if (m._ossa_viewer_mesh_commit() !== 0) throw new Error(cstr(m._ossa_viewer_error()));
    S.mesh = { name: mesh.name, vertices, indices: Uint32Array.from(indices), joints: mesh.jointNames, remap: mesh.remap, hasNormals: mesh.hasNormals, unitScale };
  }

  async function loadMesh(bytes, name, baseUrl) {
    await api.ready;
    if (!S.joints.length) throw failure(`${name}: open an archive first: the mesh is skinned by its skeleton`);
    try {
      setMesh(await readMesh(bytes, name, baseUrl));
    } catch (e) {
      M()._ossa_viewer_mesh_clear();
      S.mesh = null;
      showMesh();
      throw failure(`${name}: ${e.message}`);
    }
    evaluate();
    showMesh();
    S.camera.framed = false; // frame the mesh too
    draw();
    return S.mesh.vertices;
  }

  function showMesh() {
    $("mesh-fields").style.display = S.mesh ? "block" : "none";
    $("mesh-status").textContent = S.mesh ? `${S.mesh.name}: ${S.mesh.vertices} vertices, ${S.mesh.indices.length / 3} triangles, ${S.mesh.joints.length} joints` : "";
    $("skinning").value = S.method ? "dual-quat" : "linear";
  }

  // --- WebGL ------------------------------------------------------------------------------------
  const gl = canvas.getContext("webgl", { antialias: false, preserveDrawingBuffer: true });
  let program = null, buffer = null, meshProgram = null, meshBuffer = null;
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
    // The mesh: one colour, lit by a light from above and in front (|n.l|: a mesh's normals
    // may face either way), drawn with depth under the skeleton.
    const mvs = `attribute vec3 p; attribute vec3 n; uniform mat4 mvp; varying vec3 vn;
      void main() { gl_Position = mvp * vec4(p, 1.0); vn = n; }`;
    const mfs = `precision mediump float; varying vec3 vn; uniform vec3 colour;
      void main() { vec3 l = normalize(vec3(0.4, 0.8, 0.5)); float d = abs(dot(normalize(vn), l));
        gl_FragColor = vec4(colour * (0.35 + 0.65 * d), 1.0); }`;
    meshProgram = gl.createProgram();
    gl.attachShader(meshProgram, shader(gl.VERTEX_SHADER, mvs));
    gl.attachShader(meshProgram, shader(gl.FRAGMENT_SHADER, mfs));
    gl.linkProgram(meshProgram);
    meshBuffer = gl.createBuffer();
  }

  // The skinned triangles, unindexed: x y z nx ny nz per corner; the runtime's skinned normals,
  // or each triangle's own when the mesh has none.
  function meshVertices() {
    const idx = S.mesh.indices, p = S.skinned, q = S.skinnedNormals, out = new Float32Array(idx.length * 6);
    for (let t = 0; t < idx.length; t += 3) {
      const a = 3 * idx[t], b = 3 * idx[t + 1], c = 3 * idx[t + 2];
      const face = q ? null : norm(cross([p[b] - p[a], p[b + 1] - p[a + 1], p[b + 2] - p[a + 2]], [p[c] - p[a], p[c + 1] - p[a + 1], p[c + 2] - p[a + 2]]));
      for (let k = 0; k < 3; ++k) {
        const v = 3 * idx[t + k], o = 6 * (t + k);
        for (let e = 0; e < 3; ++e) {
          out[o + e] = p[v + e];
          out[o + 3 + e] = q ? q[v + e] : face[e];
        }
      }
    }
    return out;
  }

  function drawMesh() {
    if (!S.mesh || !S.skinned || !$("show-mesh").checked) return;
    gl.enable(gl.DEPTH_TEST);
    gl.useProgram(meshProgram);
    gl.bindBuffer(gl.ARRAY_BUFFER, meshBuffer);
    gl.bufferData(gl.ARRAY_BUFFER, meshVertices(), gl.STREAM_DRAW);
    const lp = gl.getAttribLocation(meshProgram, "p"), ln = gl.getAttribLocation(meshProgram, "n");
    gl.enableVertexAttribArray(lp);
    gl.enableVertexAttribArray(ln);
    gl.vertexAttribPointer(lp, 3, gl.FLOAT, false, 24, 0);
    gl.vertexAttribPointer(ln, 3, gl.FLOAT, false, 24, 12);
    gl.uniformMatrix4fv(gl.getUniformLocation(meshProgram, "mvp"), false, S.mvp);
    gl.uniform3fv(gl.getUniformLocation(meshProgram, "colour"), MESH);
    gl.drawArrays(gl.TRIANGLES, 0, S.mesh.indices.length);
    gl.disable(gl.DEPTH_TEST);
    gl.disableVertexAttribArray(ln);
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
    const grow = (p, count) => {
      for (let j = 0; j < count; ++j)
        for (let c = 0; c < 3; ++c) {
          lo[c] = Math.min(lo[c], p[3 * j + c]);
          hi[c] = Math.max(hi[c], p[3 * j + c]);
        }
    };
    grow(S.positions, S.joints.length);
    if (S.mesh && S.skinned && $("show-mesh").checked) grow(S.skinned, S.mesh.vertices); // the mesh too
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
    drawMesh();
    gl.useProgram(program);
    gl.bindBuffer(gl.ARRAY_BUFFER, buffer);
    gl.enableVertexAttribArray(lc);
    gl.vertexAttribPointer(lp, 3, gl.FLOAT, false, 24, 0);
    gl.vertexAttribPointer(lc, 3, gl.FLOAT, false, 24, 12);
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
    loadMesh(bytes, name) { return loadMesh(bytes, name || "mesh", location.href); },
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
    async loadMeshUrl(url) {
      const r = await fetch(url);
      if (!r.ok) throw failure(`${url}: ${r.status} ${r.statusText}`);
      const last = url.split("/").pop();
      let name = last;
      try { name = decodeURIComponent(last); } catch { /* keep the encoded name */ }
      return loadMesh(await r.arrayBuffer(), name, new URL(url, location.href));
    },
    mesh: () => S.mesh && { name: S.mesh.name, vertices: S.mesh.vertices, triangles: S.mesh.indices.length / 3, joints: [...S.mesh.joints],
      remap: [...S.mesh.remap], unitScale: S.mesh.unitScale, hasNormals: S.mesh.hasNormals, method: S.method ? "dual-quat" : "linear" },
    setSkinning(method) {
      if (method !== "linear" && method !== "dual-quat") throw failure(`no skinning method "${method}" (linear or dual-quat)`);
      S.method = method === "dual-quat" ? 1 : 0;
      showMesh();
      evaluate();
      draw();
    },
    setRestPose(on) {
      S.restPose = !!on;
      $("rest-pose").checked = S.restPose;
      evaluate();
      draw();
    },
    skinnedPositions() {
      evaluate();
      const out = [];
      for (let v = 0; S.mesh && S.skinned && v < S.mesh.vertices; ++v) out.push([S.skinned[3 * v], S.skinned[3 * v + 1], S.skinned[3 * v + 2]]);
      return out;
    },
    modelMatrices() {
      evaluate();
      const m = M(), p = m._ossa_viewer_models() >> 2, out = [];
      for (let j = 0; p && j < S.joints.length; ++j) out.push(Array.from(m.HEAPF32.subarray(p + 16 * j, p + 16 * j + 16)));
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
      const mesh = q.get("mesh");
      if (mesh) await api.loadMeshUrl(mesh);
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
