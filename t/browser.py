#!/usr/bin/env python3
"""browser.py -- drive Debian's headless Chromium for the report's tests.

usage: browser.py [--size WxH] [--timeout S] FILE <COMMANDS

Opens FILE (a path or a URL) in /usr/bin/chromium, headless, through the
DevTools protocol on a pipe (--remote-debugging-pipe: no port, no network,
nothing but the standard library), then runs the commands read from
standard input, one per line, as a user would act: real mouse events at
the place an element is drawn, real key presses.  Commands that answer
print one line.

  eval JS           the value of the expression JS, as JSON (promises are
                    awaited)
  click CSS         a left click in the middle of the first element CSS
                    selects (scrolled into view first)
  hover CSS         the pointer moved over the middle of that element
  press KEY         a key pressed and released: Escape, Enter, or a
                    character such as /
  type TEXT         TEXT typed into the focused element
  size W H          the window's inner size set to W x H (a resize)
  wait MS           a pause
  shot PNG          the window's picture written to PNG
  fullshot PNG      the whole page's picture written to PNG

Exits 1 with a message on standard error when the page throws, a command
fails or the time runs out (default 30 s).
"""
import base64
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time

CHROMIUM = "/usr/bin/chromium"


class Browser:
    def __init__(self, width, height, deadline):
        self.deadline = deadline
        self.profile = tempfile.TemporaryDirectory(prefix="hp-chromium.")
        # fd 3: commands to Chromium; fd 4: its answers.
        to_r, self.to_w = os.pipe()
        self.from_r, from_w = os.pipe()
        os.set_inheritable(to_r, True)
        os.set_inheritable(from_w, True)

        def fds():
            # Through fresh numbers first: the pipe may be 3 or 4 itself.
            a, b = os.dup(to_r), os.dup(from_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
             "--remote-debugging-pipe", "--no-first-run", "--no-default-browser-check",
             "--disable-extensions", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--hide-scrollbars",
             "--user-data-dir=" + self.profile.name,
             "--window-size=%d,%d" % (width, height), "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=open(os.environ.get("HP_CHROMIUM_LOG", os.devnull), "w"), preexec_fn=fds, pass_fds=(3, 4, to_r, from_w))
        os.close(to_r)
        os.close(from_w)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None
        self.errors = []

    def close(self):
        try:
            self.send("Browser.close", session=False)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.profile.cleanup()

    def _read_message(self):
        while b"\0" not in self.buf:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise RuntimeError("timed out")
            r, _, _ = select.select([self.from_r], [], [], left)
            if not r:
                continue
            chunk = os.read(self.from_r, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium went away")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def _note(self, m):
        if m.get("method") == "Runtime.exceptionThrown":
            d = m["params"]["exceptionDetails"]
            ex = d.get("exception", {}).get("description") or d.get("text")
            self.errors.append(ex)
        elif m.get("method") == "Runtime.consoleAPICalled" and \
                m["params"].get("type") == "error":
            self.errors.append(" ".join(str(a.get("value", a.get("description")))
                                        for a in m["params"]["args"]))
        self.events.append(m)

    def send(self, method, params=None, session=True):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.to_w, json.dumps(msg).encode() + b"\0")
        while True:
            m = self._read_message()
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"].get("message")))
                return m.get("result", {})
            self._note(m)

    def wait_event(self, method):
        while True:
            for i, m in enumerate(self.events):
                if m.get("method") == method:
                    del self.events[i]
                    return m
            self._note(self._read_message())

    def open(self, url, width, height):
        targets = self.send("Target.getTargets", session=False)["targetInfos"]
        page = [t for t in targets if t["type"] == "page"][0]
        self.session = self.send("Target.attachToTarget",
                                 {"targetId": page["targetId"], "flatten": True},
                                 session=False)["sessionId"]
        self.send("Page.enable")
        self.send("Runtime.enable")
        self.size(width, height)
        self.send("Page.navigate", {"url": url})
        self.wait_event("Page.loadEventFired")

    def size(self, width, height):
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1,
                   "mobile": False})

    def eval(self, expr):
        r = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                           "awaitPromise": True})
        if "exceptionDetails" in r:
            d = r["exceptionDetails"]
            raise RuntimeError("eval %s: %s" % (
                expr, d.get("exception", {}).get("description") or d.get("text")))
        return r["result"].get("value")

    def centre(self, css):
        q = json.dumps(css)
        box = self.eval("(() => { const e = document.querySelector(%s); if (!e) return null;"
                        " e.scrollIntoView({block: 'center', inline: 'nearest'});"
                        " const r = e.getBoundingClientRect();"
                        " return [r.left + r.width / 2, r.top + r.height / 2]; })()" % q)
        if box is None:
            raise RuntimeError("nothing matches %s" % css)
        return box

    def mouse(self, kind, x, y, **extra):
        p = {"type": kind, "x": x, "y": y}
        p.update(extra)
        self.send("Input.dispatchMouseEvent", p)

    def click(self, css):
        x, y = self.centre(css)
        self.mouse("mouseMoved", x, y)
        self.mouse("mousePressed", x, y, button="left", clickCount=1)
        self.mouse("mouseReleased", x, y, button="left", clickCount=1)

    def hover(self, css):
        x, y = self.centre(css)
        self.mouse("mouseMoved", x, y)

    KEYS = {"Escape": 27, "Enter": 13, "Tab": 9, "Backspace": 8}

    def press(self, key):
        code = self.KEYS.get(key, ord(key.upper()[0]))
        p = {"key": key, "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code}
        if key not in self.KEYS:
            p["text"] = key
        self.send("Input.dispatchKeyEvent", dict(p, type="keyDown"))
        self.send("Input.dispatchKeyEvent", dict(type="keyUp", key=key,
                                                 windowsVirtualKeyCode=code))

    def shot(self, path, full):
        p = {"format": "png"}
        if full:
            w, h = self.eval("[document.documentElement.scrollWidth,"
                             " document.documentElement.scrollHeight]")
            p.update(captureBeyondViewport=True,
                     clip={"x": 0, "y": 0, "width": w, "height": h, "scale": 1})
        data = self.send("Page.captureScreenshot", p)["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))


def main(argv):
    width, height, timeout = 1200, 800, 30.0
    args = argv[1:]
    while args and args[0].startswith("--"):
        opt = args.pop(0)
        if opt == "--size":
            width, height = (int(v) for v in args.pop(0).split("x"))
        elif opt == "--timeout":
            timeout = float(args.pop(0))
        else:
            sys.exit("browser.py: unknown option " + opt)
    if len(args) != 1:
        sys.exit(__doc__.split("\n\n")[1])
    url = args[0]
    if "://" not in url:
        url = "file://" + os.path.abspath(url)
    # timeout(1) sends SIGTERM: close Chromium on the way out all the same.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    b = Browser(width, height, time.monotonic() + timeout)
    status = 0
    try:
        b.open(url, width, height)
        for line in sys.stdin:
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            cmd, _, arg = line.partition(" ")
            if cmd == "eval":
                print(json.dumps(b.eval(arg), ensure_ascii=False), flush=True)
            elif cmd == "click":
                b.click(arg)
            elif cmd == "hover":
                b.hover(arg)
            elif cmd == "press":
                b.press(arg)
            elif cmd == "type":
                b.send("Input.insertText", {"text": arg})
            elif cmd == "size":
                w, h = arg.split()
                b.size(int(w), int(h))
            elif cmd == "wait":
                time.sleep(int(arg) / 1000)
            elif cmd in ("shot", "fullshot"):
                b.shot(arg, cmd == "fullshot")
            else:
                raise RuntimeError("unknown command: " + line)
            if b.errors:
                raise RuntimeError("the page failed: " + "; ".join(b.errors))
    except Exception as e:  # one line, the test prints it
        print("browser.py: %s" % e, file=sys.stderr)
        status = 1
    finally:
        b.close()
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
