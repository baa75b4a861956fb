#!/usr/bin/env python3
"""`ossa view`'s server without a browser (meson test 'view_server', suite tools).

Bakes a small BVH into archives whose names hold '=', a space, '#', '%', '&', '+' and a byte
that is not UTF-8, runs `ossa view --port 0` with a stand-in viewer folder (the real serve.py,
index.html and viewer.js; placeholder WebAssembly), then over HTTP:
  - every URL of the printed query, decoded once as the page's URLSearchParams does, returns
    the archive's bytes;
  - a Host header other than 127.0.0.1:PORT, localhost:PORT or [::1]:PORT (another host name,
    another port, none) gets 403, and the three accepted ones 200;
  - after SIGKILL of `ossa view`, its server process is gone within 5 s.

usage: view_server.py OSSA_EXE VIEWER_SOURCE_DIR
Exit status: 0 passed, 1 failed, 77 skipped (this ossa reads no BVH: built without assimp).
"""
import http.client
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse

BVH = b"""HIERARCHY
ROOT Hips
{
 OFFSET 0 0 0
 CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
 JOINT Spine
 {
  OFFSET 0 10 0
  CHANNELS 3 Zrotation Xrotation Yrotation
  End Site
  {
   OFFSET 0 10 0
  }
 }
}
MOTION
Frames: 3
Frame Time: 0.1
0 30 0 0 0 0 0 0 0
1 30 0 10 0 0 5 0 0
2 30 0 20 0 0 10 0 0
"""

failures = 0


def check(ok, what, detail=""):
    global failures
    print(f"{'ok' if ok else 'FAILED'}: {what}{' (' + str(detail) + ')' if detail and not ok else ''}")
    if not ok:
        failures += 1
    return ok


def get(port, path, host):
    """GET `path` with the Host header `host` (None: no Host header); (status, body)."""
    # What a browser's fetch() sends: a space or a byte beyond ASCII percent-encoded, the rest kept.
    path = urllib.parse.quote(path, safe="/%=&+:@!$'()*,;~?")
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.putrequest("GET", path, skip_host=True, skip_accept_encoding=True)
        if host is not None:
            conn.putheader("Host", host)
        conn.endheaders()
        r = conn.getresponse()
        return r.status, r.read()
    finally:
        conn.close()


def children(pid):
    """The pids whose parent is `pid`."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    stat = f.read()
            except OSError:
                continue
            fields = stat[stat.rindex(b")") + 2:].split()
            if int(fields[1]) == pid:
                found.append(int(entry))
    return found


def running(pid):
    """Whether `pid` exists and is not a zombie (exited, waiting for its new parent to reap it)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return False
    return stat[stat.rindex(b")") + 2:].split()[0] != b"Z"


def main():
    ossa, viewer_source = sys.argv[1], sys.argv[2]
    work = tempfile.mkdtemp(prefix="ossa-view-server-")
    view, servers = None, []
    try:
        viewer = os.path.join(work, "viewer")
        os.mkdir(viewer)
        for name in ("serve.py", "index.html", "viewer.js"):
            shutil.copy(os.path.join(viewer_source, name), viewer)
        for name in ("ossa_viewer.js", "ossa_viewer.wasm"):
            with open(os.path.join(viewer, name), "wb") as f:
                f.write(b"placeholder")
        bvh = os.path.join(work, "clip.bvh")
        with open(bvh, "wb") as f:
            f.write(BVH)
        names = [b"a=b c.ossa", b"odd #%&+ name\xe9.ossa"]
        paths = [os.path.join(os.fsencode(work), n) for n in names]
        for path in paths:
            r = subprocess.run([ossa, "bake", bvh, "-o", path, "-q"], capture_output=True)
            if r.returncode != 0 and b"assimp" in r.stderr:
                print(f"skipped: this ossa reads no BVH: {r.stderr.decode(errors='replace').strip()}")
                return 77
            if not check(r.returncode == 0, f"ossa bake -o {path!r}", r.stderr):
                return 1
        env = dict(os.environ, OSSA_VIEWER_DIR=viewer)
        view = subprocess.Popen([ossa, "view", *paths, "--port", "0"], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=env)
        ready, _, _ = select.select([view.stdout], [], [], 30)
        line = view.stdout.readline().decode(errors="replace").strip() if ready else ""
        if not check(line.startswith("http://127.0.0.1:"), "ossa view prints its URL", line or "nothing in 30 s"):
            return 1
        url = urllib.parse.urlsplit(line)
        port = url.port
        files = urllib.parse.parse_qs(url.query)["file"]
        check(len(files) == len(paths), "the query names every archive", files)
        for value, path in zip(files, paths):
            with open(path, "rb") as f:
                expected = f.read()
            status, body = get(port, "/" + value, f"127.0.0.1:{port}")
            check(status == 200 and body == expected, f"GET /{value} returns {os.path.basename(path)!r}", status)
        status, _ = get(port, "/files/missing.ossa", f"127.0.0.1:{port}")
        check(status == 404, "a name not given is 404", status)
        for host in ("evil.example", f"evil.example:{port}", f"127.0.0.1:{port + 1}", "127.0.0.1", None):
            for path in ("/", "/" + files[0]):
                status, body = get(port, path, host)
                check(status == 403 and b"OSSA" not in body, f"GET {path} with Host {host!r} is refused with 403", status)
        for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"LocalHost:{port}", f"[::1]:{port}"):
            status, _ = get(port, "/", host)
            check(status == 200, f"Host {host!r} is served", status)

        servers = children(view.pid)
        if not check(len(servers) == 1, "ossa view runs one server process", servers):
            return 1
        os.kill(view.pid, signal.SIGKILL)
        view.wait()
        deadline = time.monotonic() + 5
        while running(servers[0]) and time.monotonic() < deadline:
            time.sleep(0.05)
        check(not running(servers[0]), "the server exits within 5 s of SIGKILL to ossa view")
    finally:
        if view and view.poll() is None:
            view.kill()
            view.wait()
        for pid in servers:  # no orphan left behind when the test fails
            if running(pid):
                os.kill(pid, signal.SIGTERM)
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
