"""The admin API's docs page at ``/admin/docs``: works offline and asks for the token.

FastAPI's default page loads Swagger UI from a CDN, which an air-gapped hotel server cannot
reach. This page is built from the app's own OpenAPI document: every operation with its summary
and parameters, a token field, and a "send" button for the read-only (GET) operations whose only
parameter is the property. A few lines of plain script; nothing is fetched from elsewhere.
"""

from __future__ import annotations

from html import escape
from typing import Any

from fastapi import FastAPI
from starlette.requests import Request
from starlette.responses import HTMLResponse

_SCRIPT = """
const field = document.getElementById('token');
field.value = sessionStorage.getItem('roomsync-admin-token') || '';
field.addEventListener('change', () => sessionStorage.setItem('roomsync-admin-token', field.value));
for (const button of document.querySelectorAll('button[data-path]')) {
  button.addEventListener('click', async () => {
    const out = document.getElementById(button.dataset.out);
    let path = button.dataset.path;
    const property = document.getElementById('property').value;
    path = path.replace('{property_id}', encodeURIComponent(property));
    const answer = await fetch(document.body.dataset.root + path,
                               {headers: {Authorization: 'Bearer ' + field.value}});
    out.textContent = answer.status + ' ' + (await answer.text());
  });
}
"""

_STYLE = """
body { font-family: sans-serif; margin: 2em; max-width: 70em; }
code { background: #f3f3f3; padding: 0 .2em; }
.op { border-top: 1px solid #ddd; padding: .6em 0; }
.method { font-weight: bold; display: inline-block; width: 4em; }
pre { background: #f7f7f7; max-height: 20em; overflow: auto; white-space: pre-wrap; }
"""


def _operations(spec: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    found = []
    for path, methods in sorted(spec.get("paths", {}).items()):
        for method, operation in methods.items():
            found.append((method.upper(), path, operation))
    return found


def docs_page(spec: dict[str, Any], root: str) -> str:
    """The page for ``spec`` (an OpenAPI document) served under ``root`` (e.g. ``/admin``)."""
    rows = []
    for index, (method, path, operation) in enumerate(_operations(spec)):
        names = [p["name"] for p in operation.get("parameters", [])]
        sendable = method == "GET" and set(names) <= {"property_id", "limit"}
        params = ", ".join(
            f"<code>{escape(p['name'])}</code> ({escape(p.get('in', ''))})"
            for p in operation.get("parameters", [])
        )
        body = " · JSON body" if "requestBody" in operation else ""
        button = (
            f'<button data-path="{escape(path)}" data-out="out{index}">send</button>'
            f'<pre id="out{index}"></pre>'
            if sendable
            else ""
        )
        rows.append(
            f'<div class="op"><span class="method">{method}</span><code>{escape(root + path)}</code> '
            f"{escape(operation.get('summary', ''))}<br><small>{params or 'no parameters'}{body}</small>"
            f"{button}</div>"
        )
    title = escape(spec.get("info", {}).get("title", "API"))
    return (
        f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{title}</title>"
        f"<style>{_STYLE}</style></head><body data-root=\"{escape(root)}\"><h1>{title}</h1>"
        f"<p>{escape(spec.get('info', {}).get('description', ''))}</p>"
        '<p><label>Admin token <input id="token" type="password" autocomplete="off" size="40"></label> '
        '<label>property <input id="property" size="20"></label></p>'
        "<p>Every call sends <code>Authorization: Bearer &lt;token&gt;</code>; the OpenAPI document is at "
        f'<a href="{escape(root)}/openapi.json"><code>{escape(root)}/openapi.json</code></a>.</p>'
        + "".join(rows)
        + f"<script>{_SCRIPT}</script></body></html>"
    )


def add_offline_docs(app: FastAPI) -> None:
    """Serve :func:`docs_page` at ``/docs`` of ``app`` (created with ``docs_url=None``)."""

    async def docs(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "").rstrip("/")
        return HTMLResponse(docs_page(app.openapi(), root))

    app.add_route("/docs", docs, methods=["GET"], include_in_schema=False)
