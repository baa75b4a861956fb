#!/usr/bin/env python3
"""The web server of `ossa view` (tools/view.c runs it; it checks the arguments first).

Serves, on 127.0.0.1 only, the viewer's static files from --root (index.html, viewer.js,
ossa_viewer.js, ossa_viewer.wasm) and, under /files/NAME, each file given as a NAME PATH pair
after "--" (read again at each request, so a rebaked archive shows on reload; NAME may hold any
byte but "/", and is percent-encoded in the URL). Prints the page's URL on stdout, then serves
until interrupted (Ctrl-C, SIGTERM) or, with --parent-fd, until its parent dies.

Requests whose Host header is not 127.0.0.1:PORT, localhost:PORT or [::1]:PORT are refused
with 403: a web page elsewhere that points its own host name at 127.0.0.1 (DNS rebinding) could
otherwise read the archives served.

usage: serve.py --root=DIR --port=N [--query=QUERY] [--parent-fd=FD] [-- NAME PATH [NAME PATH]...]
  --port 0 takes any free port. QUERY is the page's query string (file=files/walk.ossa&...).
  FD is the read end of a pipe whose write end only the parent holds (tools/view.c): when it
  reads end of file, the parent is gone, however it died, and the server exits.
Exit status: 0 after an interrupt or the parent's end, 1 when the port cannot be bound, 2 on
bad arguments.
"""
import argparse
import errno
import http.server
import os
import signal
import sys
import threading
import urllib.parse

TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".wasm": "application/wasm",
    ".json": "application/json",
    ".ossa": "application/octet-stream",
    ".gltf": "model/gltf+json",
    ".glb": "model/gltf-binary",
}
# The viewer's own files (the rest of its folder is not served).
VIEWER_FILES = {"index.html", "viewer.js", "ossa_viewer.js", "ossa_viewer.wasm"}


def make_handler(root, files, hosts):
    """`files` maps each served name, as bytes, to its path; `hosts` holds the Host headers
    accepted (lower case)."""

    class Handler(http.server.BaseHTTPRequestHandler):
        server_version = "ossa-view"

        def log_message(self, format, *args):  # quiet: one line per request is noise here
            pass

        def send_file(self, path, head_only):
            try:
                with open(path, "rb") as f:
                    body = f.read()
            except OSError as e:
                # The status line is Latin-1: the name goes in the page, which is UTF-8.
                self.send_error(404, "cannot read the file", f"{os.path.basename(path)}: {e.strerror}")
                return
            self.send_response(200)
            self.send_header("Content-Type", TYPES.get(os.path.splitext(path)[1], "application/octet-stream"))
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            if not head_only:
                self.wfile.write(body)

        def route(self, head_only):
            host = (self.headers.get("Host") or "").strip().lower()
            if host not in hosts:
                self.send_error(403, "this server answers only to 127.0.0.1, localhost and [::1] on its port")
                return
            # Bytes, not text: a name that is not UTF-8 arrives as its own percent-encoded bytes.
            path = urllib.parse.unquote_to_bytes(urllib.parse.urlsplit(self.path).path)
            if path == b"/":
                path = b"/index.html"
            if path.startswith(b"/files/"):
                target = files.get(path[len(b"/files/"):])
            else:
                name = path[1:].decode("utf-8", "replace")
                target = os.path.join(root, name) if name in VIEWER_FILES else None
            if target is None:
                self.send_error(404, "not found")
            else:
                self.send_file(target, head_only)

        def do_GET(self):
            self.route(False)

        def do_HEAD(self):
            self.route(True)

    return Handler


def watch_parent(fd, server):
    """Blocks until the pipe from the parent reads end of file, then stops the server. The
    kernel closes the parent's write end when it exits for any reason, SIGKILL included, which
    polling getppid() would see only late and prctl(PR_SET_PDEATHSIG) only on Linux."""
    try:
        while os.read(fd, 64):
            pass
    except OSError:
        pass
    server.shutdown()


def main():
    parser = argparse.ArgumentParser(prog="ossa view", description=__doc__.split("\n")[0])
    parser.add_argument("--root", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--query", default="")
    parser.add_argument("--parent-fd", type=int)
    parser.add_argument("files", nargs="*", metavar="NAME PATH")
    args = parser.parse_args()
    if len(args.files) % 2:
        parser.error("the files come as NAME PATH pairs")
    files = {}
    for name, path in zip(args.files[0::2], args.files[1::2]):
        if not name or "/" in name:
            parser.error(f"a served name has no '/' and is not empty (found {name!r})")
        files[os.fsencode(name)] = path
    hosts = set()  # filled once the port is known
    try:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(args.root, files, hosts))
    except OSError as e:
        if e.errno == errno.EADDRINUSE:
            print(f"ossa: view: port {args.port} on 127.0.0.1 is in use (choose another with --port N, "
                  "or --port 0 for any free one)", file=sys.stderr)
        else:
            print(f"ossa: view: cannot serve on 127.0.0.1:{args.port}: {e.strerror}", file=sys.stderr)
        return 1
    port = server.server_address[1]
    hosts.update({f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"})
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    if args.parent_fd is not None:
        threading.Thread(target=watch_parent, args=(args.parent_fd, server), daemon=True).start()
    query = f"?{args.query}" if args.query else ""
    print(f"http://127.0.0.1:{port}/{query}", flush=True)
    print("ossa: view: serving until Ctrl-C", file=sys.stderr, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
