"""The explain page in a real browser.

Headless Chromium (Debian's ``chromium`` and ``chromium-driver`` packages, which
``make test`` installs when they are missing) loads the page from a file. The tests
drive it through ChromeDriver's W3C WebDriver protocol with the standard library's
``urllib``, so nothing is downloaded at run time, and check that the DOM shows the
graph's nodes and the steps table, that clicking a node shows its step, that the page
asks for nothing but itself, and that a screenshot is a non-blank PNG.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import struct
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pytest

import chainrule as torch

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1200,1400",
]
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"  # the W3C key of an element reference


def _require_browser() -> None:
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not os.access(p, os.X_OK)]
    if missing:
        pytest.fail(
            f"{', '.join(missing)} not found: the explain page is tested in headless "
            "Chromium. Run `make test` (it installs Debian's chromium and chromium-driver "
            "when missing), or as root: apt-get install -y chromium chromium-driver",
            pytrace=False,
        )


class Browser:
    """A headless Chromium session through ChromeDriver's HTTP protocol."""

    def __init__(self, tmp: str) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.log = open(os.path.join(tmp, "chromedriver.log"), "w")  # noqa: SIM115
        self.driver = subprocess.Popen(
            [CHROMEDRIVER, f"--port={self.port}"], stdout=self.log, stderr=subprocess.STDOUT
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                if self._call("GET", "/status")["ready"]:
                    break
            except (urllib.error.URLError, ConnectionError):
                pass
            if time.monotonic() > deadline or self.driver.poll() is not None:
                self.close()
                pytest.fail(f"chromedriver did not start (log: {self.log.name})")
            time.sleep(0.1)
        options = {"binary": CHROMIUM, "args": [*FLAGS, f"--user-data-dir={tmp}/profile"]}
        caps = {
            "browserName": "chrome",
            "goog:chromeOptions": options,
            "goog:loggingPrefs": {"performance": "ALL"},
        }
        self.session = self._call("POST", "/session", {"capabilities": {"alwaysMatch": caps}})[
            "sessionId"
        ]

    def _call(self, method: str, path: str, body: dict | None = None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}{path}",
            data=data,
            method=method,
            headers={"Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return json.loads(response.read())["value"]
        except urllib.error.HTTPError as err:
            raise AssertionError(f"WebDriver {method} {path}: {err.read().decode()}") from None

    def __call__(self, method: str, path: str, body: dict | None = None):
        return self._call(method, f"/session/{self.session}{path}", body)

    def find(self, css: str) -> list[str]:
        found = self("POST", "/elements", {"using": "css selector", "value": css})
        return [e[ELEMENT] for e in found]

    def text(self, element: str) -> str:
        return self("GET", f"/element/{element}/text")

    def script(self, source: str, *args):
        return self("POST", "/execute/sync", {"script": source, "args": list(args)})

    def close(self) -> None:
        if getattr(self, "session", None):
            try:
                self("DELETE", "")
            except (AssertionError, urllib.error.URLError, ConnectionError):
                pass
            self.session = None
        self.driver.terminate()
        try:
            self.driver.wait(10)
        except subprocess.TimeoutExpired:
            self.driver.kill()
        self.log.close()


@pytest.fixture(scope="module")
def browser():
    _require_browser()
    with tempfile.TemporaryDirectory() as tmp:
        b = Browser(tmp)
        try:
            yield b
        finally:
            b.close()


# ----- the pages ------------------------------------------------------------------------


def _seed_page():
    """The seed program: y = x * 2^(c+1), explained with its source lines."""
    torch.manual_seed(0)
    with torch.explain.record():
        x = torch.randn(3, requires_grad=True)
        y = x * 2
        c = 0
        while y.data.norm() < 1000:
            y = y * 2
            c += 1
    v = torch.FloatTensor([0.1, 1.0, 0.0001])
    return torch.explain(y, v), c


def _net_page():
    """The small network: two matmuls, a broadcast bias, a relu, a mean."""
    torch.manual_seed(3)
    x = torch.randn(4, 3)
    w1 = torch.randn(3, 5, requires_grad=True)
    b1 = torch.randn(5, requires_grad=True)
    w2 = torch.randn(5, 2, requires_grad=True)
    loss = ((x @ w1 + b1).relu() @ w2).mean()
    return torch.explain(loss)


def _module_page():
    """A model of two layers (nn.Module subclasses calling F.linear and F.relu)."""
    nn, F = torch.nn, torch.nn.functional

    class Dense(nn.Module):
        def __init__(self, n_in: int, n_out: int) -> None:
            super().__init__()
            self.weight = nn.Parameter(torch.randn(n_out, n_in))
            self.bias = nn.Parameter(torch.zeros(n_out))

        def forward(self, x):
            return F.linear(x, self.weight, self.bias)

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc1 = Dense(3, 4)
            self.fc2 = Dense(4, 2)

        def forward(self, x):
            return self.fc2(F.relu(self.fc1(x)))

    torch.manual_seed(5)
    model = Net()
    with torch.explain.record():
        loss = model(torch.randn(6, 3)).pow(2).mean()
    return torch.explain(loss)


def _load(browser: Browser, page: str, tmp_path: Path) -> None:
    path = tmp_path / "explain.html"
    path.write_text(page, encoding="utf-8")
    browser("POST", "/se/log", {"type": "performance"})  # drop earlier pages' events
    browser("POST", "/url", {"url": path.as_uri()})


def _requests(browser: Browser) -> list[tuple[str, str]]:
    """(url, the document that asked for it) for every request since the last call."""
    found = []
    for entry in browser("POST", "/se/log", {"type": "performance"}):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            params = message["params"]
            found.append((params["request"]["url"], params.get("documentURL", "")))
    return found


def _nodes(browser: Browser) -> list[str]:
    return [browser.text(e) for e in browser.find("svg#graph .node")]


# ----- the tests ------------------------------------------------------------------------


def test_seed_page_shows_the_graph_and_the_steps(browser, tmp_path):
    e, c = _seed_page()
    _load(browser, e.to_html(), tmp_path)
    factor = 2 ** (c + 1)
    nodes = _nodes(browser)
    # the c+1 scalings, the first of them from `y = x * 2`, and the leaf; the run of
    # `y = y * 2` steps is one box when it is long
    assert sum(t.startswith("AccumulateGrad") for t in nodes) == 1
    assert any("x.grad" in t for t in nodes)
    assert any("y = x * 2" in t for t in nodes)
    assert any("y = y * 2" in t for t in nodes)
    counted = 0
    for t in nodes:
        if t.startswith("MulBackward0 x "):
            counted += int(t.split(" x ")[1].split()[0])
        elif t.startswith("MulBackward0"):
            counted += 1
    assert counted == c + 1
    rows = [browser.text(r) for r in browser.find("table#steps tbody tr")]
    assert rows[-1].startswith(f"{c + 2} AccumulateGrad")
    summary = browser.text(browser.find("#summary")[0])
    assert f"{factor} * I" in summary
    expected = (np.array([0.1, 1.0, 0.0001], dtype=np.float32) * factor).tolist()
    assert e.gradients is not None
    np.testing.assert_allclose(next(iter(e.gradients.values())).numpy(), expected)
    # everything the page loaded is the page itself: no network, no CDN
    page = (tmp_path / "explain.html").as_uri()
    requests = _requests(browser)
    assert (page, page) in requests  # the log did record the page itself
    ours = [url for url, document in requests if document == page]
    assert all(url.startswith(("file:", "data:")) for url in ours), ours
    assert not [url for url, _ in requests if url.startswith(("http", "ws", "ftp"))]


def test_clicking_a_node_shows_its_step(browser, tmp_path):
    e = _net_page()
    _load(browser, e.to_html(), tmp_path)
    nodes = _nodes(browser)
    for name in ("MeanBackward0", "MmBackward0", "ReluBackward0", "AddBackward0"):
        assert any(t.startswith(name) for t in nodes), (name, nodes)
    assert sum(t.startswith("AccumulateGrad") for t in nodes) == 3  # w1, b1, w2
    rows = browser.find("table#steps tbody tr")
    assert len(rows) == len(e.steps)  # a short graph: one row per step
    detail = browser.find("#detail")[0]
    assert browser.text(detail) == "Click a node to see its step."
    relu = next(
        el for el in browser.find("svg#graph .node") if browser.text(el).startswith("ReluBackward0")
    )
    browser("POST", f"/element/{relu}/click", {})
    step = next(s for s in e.steps if s.node == "ReluBackward0")
    shown = browser.text(detail)
    assert shown.startswith(f"Step {step.index}: ReluBackward0 undoes")
    assert "d relu(x)/dx = 1 where x > 0" in shown
    # the node and its table row are highlighted
    assert "selected" in browser.script(
        "return arguments[0].getAttribute('class')", {ELEMENT: relu}
    )
    row = browser.find(f"table#steps tbody tr:nth-child({step.index})")[0]
    assert "selected" in browser.script("return arguments[0].className", {ELEMENT: row})
    # a second click elsewhere moves the selection
    leaf = next(el for el in browser.find("svg#graph .node") if "w2.grad" in browser.text(el))
    browser("POST", f"/element/{leaf}/click", {})
    assert "into w2.grad" in browser.text(detail)
    assert len(browser.find(".selected")) == 2


def test_screenshot_is_a_non_blank_png(browser, tmp_path):
    e = _net_page()
    _load(browser, e.to_html(), tmp_path)
    browser.script("document.getElementById('graph').scrollIntoView()")
    png = base64.b64decode(browser("GET", "/screenshot"))
    (tmp_path / "explain.png").write_bytes(png)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    assert width >= 800 and height >= 600
    # decode it in the browser (a real PNG decoder) and look at the pixels: a white page,
    # or one that failed to draw, has one colour; this one shows the graph's boxes, filled
    # light blue (operations) and light green (leaves), and dark text
    stats = browser(
        "POST",
        "/execute/async",
        {
            "script": """
            const done = arguments[arguments.length - 1];
            const img = new Image();
            img.onload = () => {
              const c = document.createElement("canvas");
              c.width = img.width; c.height = img.height;
              const g = c.getContext("2d");
              g.drawImage(img, 0, 0);
              const d = g.getImageData(0, 0, c.width, c.height).data;
              const colours = new Set(); let dark = 0, blue = 0, green = 0;
              for (let i = 0; i < d.length; i += 4) {
                colours.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
                if (d[i] + d[i + 1] + d[i + 2] < 200) dark++;
                if (d[i] === 0xee && d[i + 1] === 0xf4 && d[i + 2] === 0xff) blue++;
                if (d[i] === 0xe8 && d[i + 1] === 0xf7 && d[i + 2] === 0xe8) green++;
              }
              done({colours: colours.size, dark: dark, blue: blue, green: green,
                    pixels: d.length / 4});
            };
            img.onerror = () => done(null);
            img.src = "data:image/png;base64," + arguments[0];
            """,
            "args": [base64.b64encode(png).decode()],
        },
    )
    assert stats is not None, "the screenshot is not a PNG the browser can decode"
    assert stats["colours"] > 50
    assert 0.001 < stats["dark"] / stats["pixels"] < 0.5  # text, not a black page
    box = 200 * 40  # about the inside of one box, in pixels
    assert stats["blue"] > 3 * box and stats["green"] > 2 * box, stats


def test_headless_screenshot_from_the_command_line(tmp_path):
    """`chromium --headless --screenshot` of the seed page, without WebDriver."""
    _require_browser()
    e, _ = _seed_page()
    page = tmp_path / "seed.html"
    page.write_text(e.to_html(), encoding="utf-8")
    shot = tmp_path / "seed.png"
    proc = subprocess.run(
        [
            CHROMIUM,
            *FLAGS,
            f"--user-data-dir={tmp_path / 'profile'}",
            f"--screenshot={shot}",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", png[16:24]) == (1200, 1400)
    assert len(png) > 20_000  # a blank page of this size compresses to a few kilobytes
    dom = subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={tmp_path / 'profile2'}", "--dump-dom", page.as_uri()],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert dom.stdout.count('class="node') == len(e.items)
    assert "AccumulateGrad" in dom.stdout and 'id="steps"' in dom.stdout


def test_module_page_names_modules_and_parameters(browser, tmp_path):
    e = _module_page()
    _load(browser, e.to_html(), tmp_path)
    nodes = _nodes(browser)
    assert any(t.startswith("AddmmBackward0") and t.endswith("fc1 (Dense)") for t in nodes)
    assert any(t.startswith("ReluBackward0") and t.endswith("model (Net)") for t in nodes)
    # the nodes made outside modules (mean, pow, the leaves) name none
    marked = browser.find("svg#graph .node[data-module]")
    assert len(marked) == sum(1 for item in e.items if item.steps[0].module is not None)
    assert not any(browser.text(el).startswith("MeanBackward0") for el in marked)
    for name in ("fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"):
        assert any(f"{name}.grad" in t for t in nodes), (name, nodes)
    header = [browser.text(h) for h in browser.find("table#steps thead th")]
    assert header[:3] == ["#", "node", "module"]
    rows = [browser.text(r) for r in browser.find("table#steps tbody tr")]
    assert any(
        r.startswith(("3 AddmmBackward0 fc2 (Dense)", "3 TBackward0 fc2 (Dense)")) for r in rows
    )
    fc1 = next(
        el
        for el in browser.find("svg#graph .node")
        if browser.text(el).startswith("AddmmBackward0") and "fc1" in browser.text(el)
    )
    browser("POST", f"/element/{fc1}/click", {})
    step = next(s for s in e.steps if s.node == "AddmmBackward0" and s.module == "fc1 (Dense)")
    detail = browser.text(browser.find("#detail")[0])
    assert detail.startswith(f"Step {step.index} in fc1 (Dense): AddmmBackward0 undoes")
    assert (
        browser.script("return arguments[0].getAttribute('data-module')", {ELEMENT: fc1})
        == "fc1 (Dense)"
    )
