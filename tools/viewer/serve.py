#!/usr/bin/env python3
"""The web server of `ossa view` (tools/view.c runs it; it checks the arguments first).

Serves, on 127.0.0.1 only, the viewer's static files from --root (index.html, viewer.js,
ossa_viewer.js, ossa_viewer.wasm) and, under /files/NAME, each file given as --file NAME=PATH
(read again at each request, so a rebaked archive shows on reload). Prints the page's URL on
stdout, then serves until interrupted (Ctrl-C, SIGTERM).

usage: serve.py --root DIR --port N [--file NAME=PATH]... [--query QUERY]
  --port 0 takes any free port. QUERY is the page's query string (file=files/walk.ossa&...).
Exit status: 0 after an interrupt, 1 when the port cannot be bound, 2 on bad arguments.
"""
import argparse
import errno
import http.server
import os
import signal
import sys
import urllib.parse

TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".wasm": "application/wasm",
    ".json": "application/json",
    ".ossa": "application/octet-stream",
}
# The viewer's own files (the rest of its folder is not served).
VIEWER_FILES = {"index.html", "viewer.js", "ossa_viewer.js", "ossa_viewer.wasm"}


def make_handler(root, files):
    class Handler(http.server.BaseHTTPRequestHandler):
        server_version = "ossa-view"

        def log_message(self, format, *args):  # quiet: one line per request is noise here
            pass

        def send_file(self, path, head_only):
            try:
                with open(path, "rb") as f:
                    body = f.read()
            except OSError as e:
                self.send_error(404, f"cannot read {os.path.basename(path)}: {e.strerror}")
                return
            self.send_response(200)
            self.send_header("Content-Type", TYPES.get(os.path.splitext(path)[1], "application/octet-stream"))
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            if not head_only:
                self.wfile.write(body)

        def route(self, head_only):
            path = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path)
            if path == "/":
                path = "/index.html"
            if path.startswith("/files/"):
                target = files.get(path[len("/files/"):])
            else:
                name = path[1:]
                ok = name in VIEWER_FILES
                target = os.path.join(root, name) if ok else None
            if target is None:
                self.send_error(404, "not found")
            else:
                self.send_file(target, head_only)

        def do_GET(self):
            self.route(False)

        def do_HEAD(self):
            self.route(True)

    return Handler


def main():
    parser = argparse.ArgumentParser(prog="ossa view", description=__doc__.split("\n")[0])
    parser.add_argument("--root", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--file", action="append", default=[], metavar="NAME=PATH")
    parser.add_argument("--query", default="")
    args = parser.parse_args()
    files = {}
    for item in args.file:
        name, sep, path = item.partition("=")
        if not sep or not name or "/" in name:
            parser.error(f"--file needs NAME=PATH (found {item!r})")
        files[name] = path
    try:
        server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(args.root, files))
    except OSError as e:
        if e.errno == errno.EADDRINUSE:
            print(f"ossa: view: port {args.port} on 127.0.0.1 is in use (choose another with --port N, "
                  "or --port 0 for any free one)", file=sys.stderr)
        else:
            print(f"ossa: view: cannot serve on 127.0.0.1:{args.port}: {e.strerror}", file=sys.stderr)
        return 1
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    port = server.server_address[1]
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
