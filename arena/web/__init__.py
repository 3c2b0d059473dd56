"""The arena's web site: every node serves it on its own HTTP port (``arena serve --web-port``).

Server-rendered pages (Jinja2 templates in ``templates/``), small hand-written ES modules and CSS
in ``static/`` (shipped as package data: no build step, no CDN, nothing fetched at run time), a JSON
API behind the pages, and live matches by server-sent events fed from the node's watch stream
(public views only). Read-only: nothing here changes the arena's state.

Modules: :mod:`arena.web.frames` (engine values and match records as JSON turns),
:mod:`arena.web.chart` (SVG line charts drawn on the server), :mod:`arena.web.data` (what each page
shows, read from the node's services with bounded work), :mod:`arena.web.site` (the aiohttp
application, its routes and security headers).
"""
