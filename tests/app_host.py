"""The host page the app views' browser tests share: a small host on the official host-side SDK (tests/assets:
AppBridge + the MCP client) at a real `agent-zot serve`'s origin, rendering a view in a sandboxed iframe in
Chromium (Playwright), with the console errors and the requests the browser saw."""

from __future__ import annotations

import os
import time
from io import BytesIO
from pathlib import Path
from typing import Any

from agent_zot.view.page import inline_script, json_for_script

ASSETS = Path(__file__).parent / "assets"
# Screenshots are kept in $SCREENSHOTS_DIR when set (the README's pictures: SCREENSHOTS_DIR=docs/images
# pytest tests/view/test_app_*_browser.py), else in the test's temporary folder.
SCREENSHOTS = "SCREENSHOTS_DIR"


def host_page(call: dict[str, Any]) -> str:
    scripts = [
        (ASSETS / "ext-apps-host.min.js").read_text(encoding="utf-8"),
        f"window.HOST_CALL = {json_for_script(call)};",
        (ASSETS / "host.js").read_text(encoding="utf-8"),
    ]
    page = (ASSETS / "host.html").read_text(encoding="utf-8")
    return page.replace("@@SCRIPTS@@", "\n".join(inline_script(s) for s in scripts))


class Hosted:
    """The host page opened at the server's origin, with the errors and requests the browser saw."""

    def __init__(self, browser: Any, url: str, call: dict[str, Any]) -> None:
        self.origin = url.removesuffix("/mcp")
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page = browser.new_page()
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(f"uncaught: {e}"))
        self.page.on("request", lambda r: self.requests.append(r.url))
        body = host_page(call)
        self.page.route(
            f"{self.origin}/host.html",
            lambda route: route.fulfill(status=200, content_type="text/html", body=body),
        )
        self.page.goto(f"{self.origin}/host.html")
        self.frame = self.page.frame_locator("#view")
        self.wait("() => window.hostState.ready || window.hostState.error", "the host never got ready")
        assert self.page.evaluate("() => window.hostState.error") is None, self.errors

    def wait(self, predicate: str, why: str, timeout: float = 60.0) -> None:
        # Polled: Playwright's wait_for_function compiles with eval, which a strict CSP forbids.
        deadline = time.monotonic() + timeout
        while not self.page.evaluate(predicate):
            assert time.monotonic() < deadline, why
            time.sleep(0.05)

    def status(self) -> str:
        return self.frame.locator(".status").inner_text()

    def keep_screenshot(self, name: str, fallback: Path) -> None:
        """The page as a PNG, kept in $SCREENSHOTS_DIR (else ``fallback``), and not nearly blank."""
        folder = Path(os.environ.get(SCREENSHOTS) or fallback)
        folder.mkdir(parents=True, exist_ok=True)
        png = self.page.screenshot(full_page=True)
        (folder / name).write_bytes(png)
        check_not_trivial(png)

    def contrast(self, locator: Any) -> float:
        """The WCAG contrast ratio of the element's text against the first opaque background behind it."""
        colours = locator.evaluate(
            r"""e => {
                const text = getComputedStyle(e).color;
                let node = e, back = "rgba(0, 0, 0, 0)";
                while (node && node.nodeType === 1) {
                    back = getComputedStyle(node).backgroundColor;
                    if (!/rgba\(.*, 0\)$/.test(back) && back !== "transparent") break;
                    node = node.parentElement;
                }
                return [text, back];
            }"""
        )
        return contrast_ratio(*colours)

    def assert_clean(self) -> None:
        """No console error or uncaught exception, and no request left the server's origin."""
        assert not self.errors, self.errors
        off = [r for r in self.requests if not (r.startswith(self.origin) or r.startswith("about:"))]
        assert not off, off

    def close(self) -> None:
        self.page.close()


def check_not_trivial(png: bytes) -> None:
    from PIL import Image

    image = Image.open(BytesIO(png)).convert("RGB")
    assert image.width >= 800 and image.height >= 300
    colours = image.getcolors(maxcolors=1 << 16)
    assert colours is None or len(colours) > 50, "the screenshot is nearly blank"


def contrast_ratio(first: str, second: str) -> float:
    """WCAG 2 contrast of two CSS rgb()/rgba() colours (alpha ignored: the text is drawn opaque)."""

    def luminance(colour: str) -> float:
        red, green, blue = (int(float(v)) / 255 for v in colour[colour.index("(") + 1 : -1].split(",")[:3])
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (red, green, blue)]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    light, dark = sorted((luminance(first), luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)
