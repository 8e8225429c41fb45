"""Checks the built book in a real headless browser (Debian's chromium).

    /usr/bin/python3 docs/browser_test.py HTML_DIR [ARTIFACT_DIR]

HTML_DIR is the book's HTML tree (docs/_build/html after tools/build_book.sh). The script
serves it on 127.0.0.1, lets chromium load every page, and fails if

  - a page does not load, or loads without its title and main text (a page that only
    redirects, the top of the tree, must point at a page that exists);
  - the browser asked the server for anything that is not there (a stylesheet, a script,
    a diagram's SVG, an image): every request must be answered 200;
  - the browser's console reports an uncaught JavaScript error;
  - an internal link points at a file that does not exist, or at an anchor (#id) that the
    target page, as the browser built it, does not have;
  - a diagram (<object>, <img>) names a missing file, or an SVG file that is not an SVG;
  - a code block in a language other than plain text holds no Pygments token spans, or a
    page with code blocks does not load pygments.css;
  - a chapter page has none of its diagrams or code at all where the source has some;
  - a chapter's main page (00 to 07), or chapter 01's learning page, has no diagram at all;
  - a listing (`literalinclude`) has no caption saying where it comes from;
  - a diagram is shown narrower than its own size (squeezed to the column, its text too
    small to read), as measured in the browser by _static/mts_measure.js;
  - at 1280 px, a diagram is wider than the text column, or a code block's lines are wider
    than the block (it scrolls sideways, hiding their ends), unless the block is a program's
    output that must keep its lines (KEEP_THEIR_LINES);
  - two texts of an SVG diagram are drawn over each other, or a text over an arrow, or a
    text reaches past the picture's edge;
  - a paragraph holds more than 150 words (a list or a table reads better);
  - an API page shows a raw `[mts:` code marker (a listing's caption may name one);
  - an appendix of numbers (APPENDICES_OF_NUMBERS) shows no figure;
  - a class name in the mts column of the TensorFlow names table is not a link to its API
    entry;
  - a page still says a part is "being written" or waits "until stage" N.

It saves screenshots (SCREENSHOTS: the Introduction, What you will build, chapters 03 and
06 with their traced sequence diagrams, lab 03, an API page, the names page and the book's
first page), and the widest pages (WIDE_PAGES) at 1280 and at 800 px, to ARTIFACT_DIR, default $TEST_UNDECLARED_OUTPUTS_DIR (Bazel keeps them
in bazel-testlogs/docs/browser_test/test.outputs/), and checks that they are not blank.
"""

import base64
import html.parser
import http.server
import json
import os
import posixpath
import re
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SCREENSHOTS = {
    "introduction.png": "chapters/00_introduction/index.html",
    "what_you_will_build.png": "chapters/00_introduction/what_you_will_build.html",
    "lab_03_hooked.png": "chapters/03_hooked/lab.html",
    "chapter_03_hooked.png": "chapters/03_hooked/index.html",
    "chapter_06_monitored.png": "chapters/06_monitored/index.html",
    "api_03_hooked.png": "docs/api/03_hooked.html",
    "tensorflow_names.png": "docs/tensorflow_names.html",
    "book_root.png": "docs/index.html",
}
# The widest pages, shot at 1280 and at 800 px (a laptop's half screen) from just above
# their first diagram, which shows whole: their diagrams and listings must fit at 1280 px.
WIDE_PAGES = {
    "chapter_02_chief_worker": "chapters/02_chief_worker/index.html",
    "chapter_04_coordinated": "chapters/04_coordinated/index.html",
    "chapter_05_recoverable": "chapters/05_recoverable/index.html",
    "chapter_06_monitored": "chapters/06_monitored/index.html",
    "appendix_performance": "chapters/appendix_performance/index.html",
    "appendix_reliability": "chapters/appendix_reliability/index.html",
}
SCREEN_WIDTHS = (1280, 800)
# Program outputs shown as printed, whose lines must stay whole (a table, a log): they may
# scroll sideways. (page, words of the listing's caption).
KEEP_THEIR_LINES = [
    ("*", "== lab "),  # tools/grade.sh's scorecard on each lab page: one group a line
    ("chapters/01_session/index.html", "printed by two_graphs"),  # two plans' node tables
    ("chapters/02_chief_worker/index.html", "printed by chief_and_worker"),  # two logs
    ("chapters/04_coordinated/index.html", "printed by producer_consumer"),  # a log
    ("chapters/05_recoverable/index.html", "printed by trace_recovery"),  # a log
    ("chapters/06_monitored/index.html", "printed by trace_training_run"),  # a log
    ("chapters/06_monitored/index.html", "printed by train_spirals_twice"),  # a table
    ("chapters/07_distributed/index.html", "worker_waits.cc"),  # two servers' logs
    ("chapters/07_distributed/index.html", "printed by distributed_spirals"),  # a table
    ("chapters/appendix_campaigns/index.html", "crash_campaign"),  # a table per kill
    ("chapters/appendix_campaigns/index.html", "fault_campaign"),  # a table per fault
]
# The appendices whose matter is numbers: each must show them in at least one figure.
APPENDICES_OF_NUMBERS = [
    "chapters/appendix_performance/index.html",
    "chapters/appendix_reliability/index.html",
]
# Words that promise a part of the book later: once the part exists, they are stale.
STALE_PHRASES = [
    r"\b(chapter|section|page|part|appendix|lab|weeks? [\d-]+)s?\b[^.]{0,40}\bbeing written",
    r"\buntil stage \d",
    r"\bcoming soon\b",
]
# A page of text renders to a PNG far larger than this; a blank page to far less.
MIN_SCREENSHOT_BYTES = 20000
PAGE_TIMEOUT_SECS = 90


class Page(html.parser.HTMLParser):
    """What the checks need from a page's DOM: ids, links, diagrams, code blocks."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids = set()
        self.links = []  # href values of <a>
        self.diagrams = []  # (tag, url) of <object data> and <img src>
        self.stylesheets = []
        self.title = ""
        self.code_blocks = []  # [language, number of token spans, text]
        self.main_text = 0
        self.diagram_widths = []  # (url, natural, shown) as mts_measure.js recorded them
        self.measured = None  # how many diagrams mts_measure.js saw; None: it did not run
        self.column = 0  # the text column's width in px, as mts_measure.js measured it
        self.report = []  # what mts_measure.js found a reader cannot see whole
        self.codes = []  # (text of a <code>, whether it sits inside an <a>)
        self._code_text = None
        self._link_depth = None
        self._in_title = False
        self._stack = []  # tags, to know when a code block or the main div ends
        self._code_depth = None
        self._main_depth = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag not in ("br", "img", "link", "meta", "input", "hr", "col", "source", "wbr"):
            self._stack.append(tag)
        for key in ("id", "name"):
            if a.get(key) and (key == "id" or tag == "a"):
                self.ids.add(a[key])
        cls = (a.get("class") or "").split()
        if tag == "a" and a.get("href") is not None:
            self.links.append(a["href"])
        elif tag == "object" and a.get("data"):
            self.diagrams.append((tag, a["data"]))
        elif tag == "img" and a.get("src"):
            self.diagrams.append((tag, a["src"]))
        if tag in ("object", "img") and a.get("data-mts-natural-width") is not None:
            self.diagram_widths.append((a.get("data") or a.get("src"),
                                        int(a["data-mts-natural-width"]),
                                        int(a.get("data-mts-shown-width", "0"))))
        if tag == "body" and a.get("data-mts-measured") is not None:
            self.measured = int(a["data-mts-measured"])
            self.column = int(a.get("data-mts-column", "0"))
            self.report = json.loads(a.get("data-mts-report", "[]"))
        if tag == "a" and self._link_depth is None:
            self._link_depth = len(self._stack)
        if tag == "code" and self._code_depth is None:
            self._code_text = ""
        elif tag == "link" and a.get("rel") == "stylesheet":
            self.stylesheets.append(a.get("href", ""))
        elif tag == "title":
            self._in_title = True
        if tag == "div" and a.get("role") == "main" and self._main_depth is None:
            self._main_depth = len(self._stack)
        languages = [c[len("highlight-"):] for c in cls if c.startswith("highlight-")]
        if tag == "div" and languages and self._code_depth is None:
            self.code_blocks.append([languages[0], 0, ""])
            self._code_depth = len(self._stack)
        elif tag == "span" and self._code_depth is not None and cls:
            self.code_blocks[-1][1] += 1

    def handle_endtag(self, tag):
        if tag == "code" and self._code_text is not None:
            self.codes.append((self._code_text, self._link_depth is not None))
            self._code_text = None
        if tag in self._stack:
            while self._stack:
                if self._stack.pop() == tag:
                    break
        if self._code_depth is not None and len(self._stack) < self._code_depth:
            self._code_depth = None
        if self._main_depth is not None and len(self._stack) < self._main_depth:
            self._main_depth = None
        if self._link_depth is not None and len(self._stack) < self._link_depth:
            self._link_depth = None
        if tag == "title":
            self._in_title = False

    def handle_data(self, data):
        if self._in_title:
            self.title += data
        if self._code_text is not None:
            self._code_text += data
        if self._code_depth is not None:
            self.code_blocks[-1][2] += data
        if self._main_depth is not None:
            self.main_text += len(data.strip())


class Server:
    """Serves a directory on 127.0.0.1 and remembers every request and its status."""

    def __init__(self, root):
        self.requests = []
        lock = threading.Lock()
        outer = self

        class Handler(http.server.SimpleHTTPRequestHandler):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, directory=root, **kwargs)

            def log_request(self, code="-", size="-"):
                with lock:
                    outer.requests.append((self.path, int(getattr(code, "value", code))))

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = "http://127.0.0.1:%d/" % self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def take_requests(self):
        taken, self.requests = self.requests, []
        return taken

    def stop(self):
        self.httpd.shutdown()


class Browser:
    """One headless chromium, driven over its DevTools protocol on a pipe.

    Starting chromium costs 2 to 4 seconds here, far more than loading a page of the book,
    so one browser loads every page in turn: navigate, wait until the page's load handlers
    have run (mts_measure.js), read the DOM as the browser built it. Messages are JSON, each
    ended by a NUL byte; the browser reads commands on its fd 3 and writes on its fd 4.
    """

    def __init__(self, profile):
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()

        def child_fds():  # In the child, before exec: the two pipes become fds 3 and 4.
            os.dup2(to_browser_r, 3)
            os.dup2(from_browser_w, 4)

        cmd = [
            CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--no-first-run", "--disable-extensions", "--hide-scrollbars",
            "--user-data-dir=" + os.path.join(profile, "chromium"),
            "--remote-debugging-pipe", "--window-size=1280,1600", "about:blank",
        ]
        self._stderr = open(os.path.join(profile, "chromium.log"), "w")
        self._proc = subprocess.Popen(cmd, env=dict(os.environ, HOME=profile),
                                      stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                      stderr=self._stderr, preexec_fn=child_fds,
                                      pass_fds=(3, 4))
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next_id = 0
        self._events = []
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self._session = self.call("Target.attachToTarget",
                                  {"targetId": page["targetId"], "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime"):
            self.call(domain + ".enable", session=True)
        # A reader's window, so the column has its real width (diagrams are measured in it).
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": 1280, "height": 1600, "deviceScaleFactor": 1, "mobile": False},
                  session=True)

    def _read(self, deadline):
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_browser], [], [], left)[0]:
                raise TimeoutError("chromium did not answer within %d s" % PAGE_TIMEOUT_SECS)
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                raise RuntimeError("chromium exited (exit %s)" % self._proc.poll())
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, params=None, session=False):
        """Sends one command and returns its result; events that arrive meanwhile are kept."""
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self._session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + PAGE_TIMEOUT_SECS
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError("%s: %s" % (method, reply["error"].get("message")))
                return reply.get("result", {})
            if "method" in reply:
                self._events.append(reply)

    def wait_for(self, method):
        deadline = time.monotonic() + PAGE_TIMEOUT_SECS
        while True:
            for i, event in enumerate(self._events):
                if event["method"] == method:
                    del self._events[i]
                    return event
            self._events.append(self._read(deadline))

    def load(self, url):
        """Loads `url`; returns its DOM as HTML and the JavaScript errors it reported."""
        self._events = []
        self.call("Page.navigate", {"url": url}, session=True)
        self.wait_for("Page.loadEventFired")
        # The load handlers have run once a task queued after the load event runs.
        self.call("Runtime.evaluate", {
            "expression": "new Promise(done => setTimeout(done, 0))", "awaitPromise": True},
            session=True)
        dom = self.call("Runtime.evaluate", {
            "expression": "document.documentElement.outerHTML", "returnByValue": True},
            session=True)["result"]["value"]
        errors = []
        for event in self._events:
            if event["method"] == "Runtime.exceptionThrown":
                details = event["params"]["exceptionDetails"]
                errors.append(details.get("exception", {}).get("description") or
                              details.get("text", "an exception"))
            elif event["method"] == "Runtime.consoleAPICalled" and \
                    event["params"]["type"] == "error":
                errors.append(" ".join(str(a.get("value", a.get("description", "")))
                                       for a in event["params"]["args"]))
        return dom, errors

    def screenshot(self, url, out, width=1280, at_diagram=False):
        """Saves the window at `width` px; with `at_diagram`, from a little above the page's
        first diagram down, as tall as that diagram (at most 4000 px), so it shows whole."""
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": 1600, "deviceScaleFactor": 1, "mobile": False},
                  session=True)
        self.load(url)
        params = {"format": "png"}
        if at_diagram:
            box = self.call("Runtime.evaluate", {"expression": """(() => {
                const d = document.querySelector("div[role=main] object, div[role=main] img");
                if (!d) return null;
                const r = d.getBoundingClientRect();
                return [r.top + window.scrollY, r.height];
              })()""", "returnByValue": True}, session=True)["result"].get("value")
            if box:
                top = max(0, box[0] - 120)
                params.update(captureBeyondViewport=True, clip={
                    "x": 0, "y": top, "width": width,
                    "height": min(4000, max(1600, box[1] + 200)), "scale": 1})
        data = self.call("Page.captureScreenshot", params, session=True)["data"]
        with open(out, "wb") as f:
            f.write(base64.b64decode(data))

    def close(self):
        try:
            self.call("Browser.close")
        except (OSError, RuntimeError, TimeoutError):
            pass
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)
        self._stderr.close()


# Fenced blocks that show no code: plain text, and directives that draw or list.
NOT_CODE = {"text", "{graphviz}", "{toctree}", "{image}"}


def has_code(source):
    """Whether a page's Markdown source holds a code block that is not plain text: a fence
    in a language, or a `literalinclude` (or `beside`) whose language is not text."""
    lines = source.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"^\s*```(\S+)", line)
        if not m or m.group(1) in NOT_CODE:
            continue
        if m.group(1) != "{literalinclude}":
            return True
        options = []
        for follow in lines[i + 1:]:
            if not follow.strip().startswith(":"):
                break
            options.append(follow.strip())
        if ":language: text" not in options:
            return True
    return False


def html_pages(root):
    pages = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        dirnames[:] = [d for d in dirnames if not d.startswith("_")]
        for f in filenames:
            if f.endswith(".html"):
                pages.append(posixpath.normpath(posixpath.join(rel.replace(os.sep, "/"), f)))
    return sorted(pages)


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    root = os.path.abspath(argv[1])
    artifacts = argv[2] if len(argv) > 2 else os.environ.get("TEST_UNDECLARED_OUTPUTS_DIR")
    if not os.path.exists(CHROMIUM):
        print("browser_test: chromium is not installed; run tools/setup.sh")
        return 1
    if not os.path.isfile(os.path.join(root, "docs", "index.html")):
        print("browser_test: %s holds no built book (no docs/index.html)" % root)
        return 1
    profile = tempfile.mkdtemp(prefix="mts-browser-", dir=os.environ.get("TEST_TMPDIR"))
    server = Server(root)
    browser = Browser(profile)
    failures = []
    doms = {}

    def fail(page, what):
        failures.append("%s: %s" % (page, what))

    pages = html_pages(root)
    for page in pages:
        with open(os.path.join(root, page), encoding="utf-8", errors="replace") as f:
            refresh = re.search(r'http-equiv="refresh" content="\d+; *url=([^"]+)"', f.read())
        if refresh:
            # A page that only sends the reader on (the top of the tree): the browser may dump
            # it half-way through the redirect, so check where it points instead.
            target = posixpath.normpath(posixpath.join(posixpath.dirname(page), refresh[1]))
            if not os.path.isfile(os.path.join(root, target)):
                fail(page, "redirects to %s, which does not exist" % target)
            continue
        try:
            html, errors = browser.load(server.base + page)
        except (OSError, RuntimeError, TimeoutError) as e:
            fail(page, "chromium could not load it: %s" % e)
            continue
        requests = server.take_requests()
        if "<html" not in html:
            fail(page, "chromium loaded no HTML document")
            continue
        for path, code in requests:
            if code not in (200, 304) and path != "/favicon.ico":  # the book has no icon
                fail(page, "the browser asked for %s and got %d" % (path, code))
        for error in errors:
            fail(page, "JavaScript error in the console: " + error.strip())
        dom = Page()
        dom.feed(html)
        doms[page] = dom
        if not dom.title.strip():
            fail(page, "the loaded page has no title")
        if page != "search.html" and dom.main_text < 40:
            fail(page, "the loaded page shows almost no text in its main area")
    server.stop()

    # Links, diagrams and code, on the DOM the browser built.
    checked_links = 0
    for page, dom in doms.items():
        for href in dom.links:
            url = urllib.parse.urlsplit(href)
            if url.scheme or url.netloc or href.startswith("mailto:"):
                continue  # external: not this test's business (the book builds offline)
            target = page if not url.path else posixpath.normpath(
                posixpath.join(posixpath.dirname(page), urllib.parse.unquote(url.path)))
            if target.endswith("/") or os.path.isdir(os.path.join(root, target)):
                target = posixpath.join(target, "index.html")
            checked_links += 1
            if target.startswith("..") or not os.path.isfile(os.path.join(root, target)):
                fail(page, "link %r points at a missing file %s" % (href, target))
                continue
            if url.fragment and target.endswith(".html"):
                ids = doms[target].ids if target in doms else set()
                if urllib.parse.unquote(url.fragment) not in ids:
                    fail(page, "link %r: %s has no anchor #%s" % (href, target, url.fragment))
        for tag, src in dom.diagrams:
            if urllib.parse.urlsplit(src).scheme:
                continue
            path = os.path.join(root, posixpath.normpath(posixpath.join(
                posixpath.dirname(page), urllib.parse.unquote(src.split("#")[0]))))
            if not os.path.isfile(path):
                fail(page, "<%s> %s names a missing file" % (tag, src))
            elif path.endswith(".svg"):
                with open(path, encoding="utf-8", errors="replace") as f:
                    if "<svg" not in f.read():
                        fail(page, "<%s> %s is not an SVG image" % (tag, src))
        highlighted = 0
        for language, spans, text in dom.code_blocks:
            if language in ("text", "none", "default") or not text.strip():
                continue
            if spans == 0:
                fail(page, "a %s code block is not highlighted: %r" % (language, text[:80]))
            else:
                highlighted += 1
        if highlighted and not any("pygments.css" in s for s in dom.stylesheets):
            fail(page, "has highlighted code but does not load pygments.css")

    # A chapter page whose source has code shows it highlighted, and one whose source has a
    # diagram shows it. (A page of prose and text blocks, such as a chapter's quiz, has no
    # code to show.)
    for page in pages:
        if not page.startswith("chapters/"):
            continue
        dom = doms.get(page)
        if dom is None:
            continue
        source = os.path.join(root, "_sources", page[:-len(".html")] + ".md.txt")
        text = ""
        if os.path.isfile(source):
            with open(source, encoding="utf-8") as f:
                text = f.read()
        if (has_code(text) or not text) and not any(
                lang not in ("text",) and spans for lang, spans, _ in dom.code_blocks):
            fail(page, "a chapter page without a single highlighted code block")
        if "{graphviz}" in text and not any(tag == "object" for tag, _ in dom.diagrams):
            fail(page, "its source has a graphviz diagram, the page shows none")

    # A picture per idea: every chapter's main page, and the learning page, shows at least
    # one diagram drawn from the code or a run.
    chapter_pages = [p for p in sorted(pages)
                     if re.match(r"chapters/0\d_[a-z_]+/(index|learning)\.html$", p)]
    if len(chapter_pages) < 9:
        fail("chapters/", "expected the eight chapters' pages and learning.html, found %s"
             % chapter_pages)
    for page in chapter_pages:
        dom = doms.get(page)
        if dom is not None and not any(tag == "object" for tag, _ in dom.diagrams):
            fail(page, "a chapter page without a single diagram")

    # Diagrams at their own size: a diagram shown narrower than it was drawn has text smaller
    # than the page's. A page with diagrams must have been measured at all.
    for page, dom in doms.items():
        if dom.diagrams and dom.measured is None:
            fail(page, "mts_measure.js did not run, so its diagrams' widths are unknown")
        for url, natural, shown in dom.diagram_widths:
            if natural > 0 and shown < 0.95 * natural:
                fail(page, "diagram %s is shown %d px wide, squeezed from its %d px: make it "
                     "narrower, split it, or let it scroll" % (url, shown, natural))

    # Everything whole at 1280 px: no diagram or code block wider than the column (program
    # outputs that must keep their lines, KEEP_THEIR_LINES, may scroll), no label drawn over
    # another or over an arrow, no paragraph over 150 words, no raw `[mts:` marker in an API
    # page, and a figure on each appendix of numbers (mts_measure.js measures; see there).
    for page, dom in sorted(doms.items()):
        for item in dom.report:
            kind, what = item.get("kind"), item.get("what", "")
            if kind == "diagram-overflow":
                fail(page, "diagram %s is %d px wide, wider than the %d px column: lay it out "
                     "narrower or split it" % (what, item["width"], item["column"]))
            elif kind == "code-overflow":
                if not any(p in ("*", page) and name in what for p, name in KEEP_THEIR_LINES):
                    fail(page, "code block %r is %d px wide in a %d px box: its lines are cut "
                         "(shorten them, or name it in KEEP_THEIR_LINES if it is a program's "
                         "output that must keep its lines)" % (what[:90], item["width"],
                                                               item["shown"]))
            elif kind == "label-overlap":
                fail(page, "diagram %s draws %r over %r" % (what, item["labels"][0],
                                                             item["labels"][1]))
            elif kind == "label-clipped":
                fail(page, "diagram %s cuts off %r at its edge (graphviz measured the text "
                     "narrower than the browser draws it: give the picture a pad)"
                     % (what, item["labels"][0]))
            elif kind == "long-paragraph":
                fail(page, "a paragraph of %d words (over 150): %r...: make its list a list "
                     "or a table, or split it" % (item["words"], what))
            elif kind == "raw-marker" and page.startswith("docs/api/"):
                fail(page, "shows a raw code marker: %r" % what)
    for page in APPENDICES_OF_NUMBERS:
        dom = doms.get(page)
        if dom is None:
            fail(page, "no such page: an appendix of numbers is missing")
        elif not dom.diagrams:
            fail(page, "an appendix of numbers without a single figure")

    # Every listing says where it comes from.
    for page in pages:
        source = os.path.join(root, "_sources", page[:-len(".html")] + ".md.txt")
        if not os.path.isfile(source):
            continue
        with open(source, encoding="utf-8") as f:
            text = f.read()
        # A listing indented in a list item counts too.
        for block in re.finditer(r"^[ \t]*`{3,}\{literalinclude\}\s+(\S+)\n((?:[ \t]*:.*\n)*)",
                                 text, re.M):
            if ":caption:" not in block.group(2):
                fail(page, "the listing of %s has no caption" % block.group(1))
        for phrase in STALE_PHRASES:
            for line in text.splitlines():
                if re.search(phrase, line, re.I):
                    fail(page, "still promises a part for later: %s" % line.strip()[:100])

    # Class names in the names table link to their API entries. The classes are the ones
    # the API pages declare (their anchors are the C++ domain's ids, _CPPv4N3mts<n><Name>E).
    classes = set()
    for page, dom in doms.items():
        if page.startswith("docs/api/"):
            for anchor in dom.ids:
                m = re.match(r"_CPPv4N3mts(\d+)(\w+)E$", anchor)
                if m and len(m.group(2)) == int(m.group(1)):
                    classes.add(m.group(2))
    names = doms.get("docs/tensorflow_names.html")
    if names is None or not classes:
        fail("docs/tensorflow_names.html", "no names page, or no API page declares a class")
    else:
        for text, linked in names.codes:
            if text.strip() in classes and not linked:
                fail("docs/tensorflow_names.html", "class %s is not linked to its API entry"
                     % text.strip())

    # Screenshots, kept as build artifacts.
    shots = 0
    if artifacts:
        os.makedirs(artifacts, exist_ok=True)
        server = Server(root)
        shots_to_take = [(name, page, 1280, False) for name, page in SCREENSHOTS.items()]
        shots_to_take += [("%s_%d.png" % (name, width), page, width, True)
                          for name, page in WIDE_PAGES.items() for width in SCREEN_WIDTHS]
        for name, page, width, at_diagram in shots_to_take:
            if page not in doms:
                fail(page, "no such page to take a screenshot of")
                continue
            out = os.path.join(artifacts, name)
            try:
                browser.screenshot(server.base + page, out, width, at_diagram)
            except (OSError, RuntimeError, TimeoutError) as e:
                fail(page, "no screenshot: %s" % e)
                continue
            for path, code in server.take_requests():
                if code not in (200, 304) and path != "/favicon.ico":
                    fail(page, "(screenshot) the browser asked for %s and got %d" % (path, code))
            if not os.path.isfile(out):
                fail(page, "no screenshot")
            elif os.path.getsize(out) < MIN_SCREENSHOT_BYTES:
                fail(page, "the screenshot %s is nearly empty (%d bytes)"
                     % (name, os.path.getsize(out)))
            else:
                shots += 1
        server.stop()
    else:
        print("browser_test: no ARTIFACT_DIR and no $TEST_UNDECLARED_OUTPUTS_DIR: "
              "no screenshots taken")

    browser.close()
    shutil.rmtree(profile, ignore_errors=True)
    blocks = sum(1 for d in doms.values() for b in d.code_blocks if b[0] != "text")
    print("browser_test: %d pages loaded in chromium, %d internal links, %d diagrams, "
          "%d highlighted code blocks, %d screenshots%s"
          % (len(doms), checked_links, sum(len(d.diagrams) for d in doms.values()), blocks,
             shots, (" in " + artifacts) if artifacts else ""))
    if failures:
        print("browser_test: %d problem(s):" % len(failures))
        for f in failures:
            print("  " + f)
        return 1
    print("browser_test: PASSED")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
