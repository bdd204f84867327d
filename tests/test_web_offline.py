"""Pages that need nothing but this server: the API documentation renders
its operations in headless Chromium with every other host unreachable, no template or page
names an asset on another host, and the favicon is served."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ratingdb.web.app import TEMPLATES, create_app
from tests.web_support import TODAY, client_for, database, engine_for, served

CHROMIUM = Path("/usr/bin/chromium")
#: an attribute that makes the browser load something (src, href, action, a CSS url())
#: from another host: an absolute http(s) URL or a protocol-relative //host
EXTERNAL = re.compile(
    r"""(?:\b(?:src|href|action|srcset)\s*=\s*["']?|url\(\s*["']?)(?:https?:)?//""", re.I
)


@pytest.fixture(scope="module")
def empty_site(pg_server):
    with database(pg_server, "web_offline") as url:
        yield url


def test_no_template_loads_anything_from_another_host():
    names = sorted(p.name for p in TEMPLATES.glob("*.html"))
    assert "base.html" in names
    offending = {
        n: EXTERNAL.findall((TEMPLATES / n).read_text(encoding="utf-8"))
        for n in names
        if EXTERNAL.search((TEMPLATES / n).read_text(encoding="utf-8"))
    }
    assert offending == {}
    # the pattern does catch what it must
    assert EXTERNAL.search('<script src="https://cdn.example/x.js">')
    assert EXTERNAL.search("<link href='//fonts.example/css'>")
    assert EXTERNAL.search("body { background: url( https://x.example/a.png) }")
    assert not EXTERNAL.search('<svg xmlns="http://www.w3.org/2000/svg">')


def test_docs_redoc_assets_and_favicon_come_from_this_server(empty_site):
    client = client_for(empty_site)
    for page in ("/docs", "/redoc", "/players", "/"):
        response = client.get(page)
        assert response.status_code == 200, page
        assert not EXTERNAL.search(response.text), page
    docs = client.get("/docs").text
    assets = re.findall(r"""(?:src|href)="([^"]+)\"""", docs)
    assert "/static/api-docs/swagger-ui-bundle.js" in assets
    assert "/static/swagger-init.js" in assets and "<script>" not in docs  # no inline script
    for asset in [*assets, "/static/api-docs/redoc.standalone.js"]:
        got = client.get(asset)
        assert got.status_code == 200, asset
        assert len(got.content) > (100 if asset == "/static/swagger-init.js" else 1000), asset
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon.headers["content-type"] == "image/x-icon"
    assert icon.content[:4] == b"\x00\x00\x01\x00"  # an ICO file
    assert '<link rel="icon" href="/favicon.ico">' in client.get("/").text
    policy = client.get("/redoc").headers["content-security-policy"]
    assert "default-src 'self'" in policy and "https:" not in policy


@pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed")
def test_docs_render_the_operations_with_the_network_blocked(empty_site):
    from playwright.sync_api import sync_playwright

    app = create_app(engine_for(empty_site), today=lambda: TODAY)
    with served(app) as site, sync_playwright() as pw:
        # every name resolves to nothing and every connection goes to a dead proxy; only the
        # loopback server (the proxy's implicit bypass) is reachable
        browser = pw.chromium.launch(
            executable_path=str(CHROMIUM),
            headless=True,
            args=[
                "--proxy-server=http://127.0.0.1:9",
                "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
            ],
        )
        page = browser.new_page()
        requested: list[str] = []
        failed: dict[str, str | None] = {}
        page.on("request", lambda r: requested.append(r.url))
        page.on("requestfailed", lambda r: failed.update({r.url: r.failure}))
        page.goto(site + "/docs")
        page.wait_for_selector(".opblock-summary-path", timeout=20_000)
        paths = page.locator(".opblock-summary-path").all_inner_texts()
        assert "/api/players" in [p.replace("\u200b", "") for p in paths]
        assert len(paths) >= 15  # public, officer and admin operations
        page.goto(site + "/redoc")
        page.wait_for_selector("[data-section-id^='operation/']", timeout=20_000, state="attached")
        # the block works: another host is unreachable from this browser
        with pytest.raises(Exception, match="ERR_"):
            page.goto("http://example.org/", timeout=10_000)
        browser.close()
    outside = [
        u
        for u in requested
        if not u.startswith((site, "data:", f"blob:{site}")) and u != "http://example.org/"
    ]
    # ReDoc's bundle asks for its vendor's logo on a CDN: the page's policy refuses it, so
    # such a request never leaves the browser
    assert {u: failed.get(u) for u in outside} == {u: "csp" for u in outside}
    assert [u for u in failed if u.startswith(site)] == []
