"""Logging: every record carries the request it belongs to (a filter reads app.observability.request_context),
in plain text or, with WARRANTY_LOG_FORMAT=json, as one JSON object per line; uvicorn's own loggers (its
access log included) are given the same filter and format. No line carries a secret of a URL
(app.observability.url_secrets): requests reach the app with theirs already out of the server's sight, and the
lines httpx writes about the requests the service sends keep only the URL's origin."""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any

import httpx

from app.config import Settings
from app.observability import request_context
from app.observability.url_secrets import origin_of

UVICORN_LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access")
_ACCESS_FIELDS = ("client", "method", "path", "http_version", "status")


class RequestContextFilter(logging.Filter):
    """Adds `request_id` and `user_id` (None outside a request) to every record it sees."""

    def filter(self, record: logging.LogRecord) -> bool:
        context = request_context.current()
        record.request_id = context.request_id if context is not None else None
        record.user_id = context.user_id if context is not None else None
        return True


class OutboundUrlFilter(logging.Filter):
    """httpx's line about each request the service sends (`HTTP Request: POST <url> ...`) keeps the URL's
    origin only: a webhook URL may hold its secret in the path, a signed link in the query."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(origin_of(arg) if isinstance(arg, httpx.URL) else arg for arg in record.args)
        return True


class TextFormatter(logging.Formatter):
    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s %(context)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        request_id, user_id = getattr(record, "request_id", None), getattr(record, "user_id", None)
        context = f"request={request_id}" if request_id else "-"
        record.context = f"{context} user={user_id}" if user_id is not None else context
        return super().format(record)


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, request_id, user_id; an access line adds
    client, method, path, http_version and status; an error adds its traceback as `exception`."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", None),
            "user_id": getattr(record, "user_id", None),
        }
        if record.name == "uvicorn.access" and isinstance(record.args, tuple) and len(record.args) == 5:
            line.update(zip(_ACCESS_FIELDS, record.args, strict=True))
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        if record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        return json.dumps(line, ensure_ascii=False, default=str)


class _AppHandler(logging.StreamHandler):
    """The root handler this module installs (found again, not duplicated, when an app is built twice)."""


_FILTER = RequestContextFilter()
_OUTBOUND = OutboundUrlFilter()


def configure_logging(settings: Settings) -> None:
    """The root logger writes to stderr in the configured format; uvicorn's handlers get the same format
    and the request filter (uvicorn configures its loggers before it loads the app)."""
    formatter: logging.Formatter = JsonFormatter() if settings.log_format == "json" else TextFormatter()
    root = logging.getLogger()
    handler = next((h for h in root.handlers if isinstance(h, _AppHandler)), None)
    if handler is None:
        handler = _AppHandler(sys.stderr)
        root.addHandler(handler)
    root.setLevel(settings.log_level)
    if _OUTBOUND not in logging.getLogger("httpx").filters:
        logging.getLogger("httpx").addFilter(_OUTBOUND)  # on the logger: whatever handler writes it
    for each in [handler, *(h for name in UVICORN_LOGGERS for h in logging.getLogger(name).handlers)]:
        each.setFormatter(formatter)
        if _FILTER not in each.filters:
            each.addFilter(_FILTER)
