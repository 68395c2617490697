"""The web page: chat with your notes, clickable citations, settings, sessions, index status.

Server-rendered Jinja2 templates and plain JavaScript/CSS written here (no build step, no
CDN). Every piece of data comes from the HTTP API (fetch and Server-Sent Events).
"""

from notecite.web.routes import mount_web

__all__ = ["mount_web"]
