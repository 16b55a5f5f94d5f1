"""The parts of the OpenAPI document that routes cannot declare themselves: the hub's credentials and
topics (its route is answered by a pure ASGI app ahead of FastAPI), and the inbound webhooks' signatures
and three payload formats (their routes read the raw body to check its signature)."""

from __future__ import annotations

from typing import Any

HUB_PATH = "/.well-known/mercure"
PROVIDER_INBOUND = "/api/webhook/{provider}/inbound"
STANDARD_INBOUND = "/api/inbound/email"

SECURITY_SCHEMES: dict[str, dict[str, Any]] = {
    "HubQuery": {
        "type": "apiKey",
        "in": "query",
        "name": "authorization",
        "description": "The hub only: the access token as a query parameter "
        "(EventSource cannot send headers).",
    },
    "HubCookie": {
        "type": "apiKey",
        "in": "cookie",
        "name": "mercureAuthorization",
        "description": "The hub only: the HttpOnly cookie set by POST /api/login.",
    },
    "ResendSignature": {
        "type": "apiKey",
        "in": "header",
        "name": "Resend-Signature",
        "description": "`{Provider}-Signature` (any case) for the provider in the path: the hex "
        "HMAC-SHA256 of the raw body keyed with WARRANTY_WEBHOOK_SECRET.",
    },
    "PostmarkSignature": {
        "type": "apiKey",
        "in": "header",
        "name": "Postmark-Signature",
        "description": "As Resend-Signature, for the postmark provider.",
    },
    "PostmarkBasic": {
        "type": "http",
        "scheme": "basic",
        "description": "Postmark signs nothing: its HTTP Basic credentials (in the webhook URL) equal to "
        "WARRANTY_POSTMARK_INBOUND_USER / WARRANTY_POSTMARK_INBOUND_PASSWORD.",
    },
    "StandardWebhooks": {
        "type": "apiKey",
        "in": "header",
        "name": "webhook-signature",
        "description": "Standard Webhooks: space-separated `v1,<base64>` HMAC-SHA256 of "
        "`{webhook-id}.{webhook-timestamp}.{raw body}` keyed with WARRANTY_INBOUND_SECRET (`whsec_` base64). "
        "`svix-id`, `svix-timestamp`, `svix-signature` are accepted for the three headers.",
    },
}

_ATTACHMENT = {
    "type": "object",
    "properties": {
        "filename": {"type": "string"},
        "content_type": {"type": "string"},
        "content": {"type": "string", "description": "base64"},
    },
}
INBOUND_SCHEMAS: dict[str, dict[str, Any]] = {
    "InboundProviderEvent": {
        "title": "InboundProviderEvent",
        "description": "(a) An email provider's event (Resend `email.received`). Without `text`/`html` the "
        "body is fetched from the provider's receiving API.",
        "type": "object",
        "required": ["type", "data"],
        "properties": {
            "type": {"type": "string", "enum": ["email.received"]},
            "created_at": {"type": "string", "format": "date-time"},
            "data": {
                "type": "object",
                "required": ["from", "to"],
                "properties": {
                    "email_id": {"type": "string"},
                    "id": {"type": "string"},
                    "message_id": {"type": "string"},
                    "from": {"type": "string"},
                    "to": {"type": "array", "items": {"type": "string"}},
                    "subject": {"type": "string"},
                    "text": {"type": "string"},
                    "html": {"type": "string"},
                    "headers": {"type": "object", "additionalProperties": {"type": "string"}},
                    "attachments": {"type": "array", "items": _ATTACHMENT},
                },
            },
        },
    },
    "InboundPostmark": {
        "title": "InboundPostmark",
        "description": "(b) Postmark's inbound JSON.",
        "type": "object",
        "required": ["FromFull", "ToFull"],
        "properties": {
            "FromFull": {
                "type": "object",
                "properties": {"Email": {"type": "string"}, "Name": {"type": "string"}},
            },
            "ToFull": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "Email": {"type": "string"},
                        "Name": {"type": "string"},
                        "MailboxHash": {"type": "string"},
                    },
                },
            },
            "Subject": {"type": "string"},
            "MessageID": {"type": "string"},
            "MailboxHash": {"type": "string"},
            "TextBody": {"type": "string"},
            "HtmlBody": {"type": "string"},
            "StrippedTextReply": {"type": "string"},
            "Headers": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"Name": {"type": "string"}, "Value": {"type": "string"}},
                },
            },
            "Attachments": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "Name": {"type": "string"},
                        "Content": {"type": "string", "description": "base64"},
                        "ContentType": {"type": "string"},
                        "ContentLength": {"type": "integer"},
                    },
                },
            },
        },
    },
    "InboundGeneric": {
        "title": "InboundGeneric",
        "description": "(c) The generic format.",
        "type": "object",
        "required": ["from", "to"],
        "properties": {
            "from": {"type": "string"},
            "to": {"type": "string"},
            "subject": {"type": "string"},
            "text": {"type": "string"},
            "html": {"type": "string"},
            "headers": {"type": "object", "additionalProperties": {"type": "string"}},
            "attachments": {"type": "array", "items": _ATTACHMENT},
        },
    },
}
_REPLY = (
    "Thanks, the new part works.\n\nOn Mon, 12 Jan 2026 Warranty <notifications@warranty.local> wrote:\n> ..."
)
INBOUND_EXAMPLES = {
    "provider": {
        "summary": "(a) email provider event",
        "value": {
            "type": "email.received",
            "data": {
                "email_id": "4ef9a417-02e9-4d39-ad75-9611e0fcc33c",
                "from": "Ann Example <ann@example.com>",
                "to": ["claim+42@warranty.local"],
                "subject": "Re: New message on your claim #42",
                "text": _REPLY,
            },
        },
    },
    "postmark": {
        "summary": "(b) Postmark",
        "value": {
            "FromFull": {"Email": "ann@example.com", "Name": "Ann Example"},
            "ToFull": [{"Email": "claim+42@warranty.local", "Name": "", "MailboxHash": "42"}],
            "Subject": "Re: New message on your claim #42",
            "MessageID": "73e6d360-66eb-11e1-8e72-a8904824019b",
            "TextBody": _REPLY,
        },
    },
    "generic": {
        "summary": "(c) generic",
        "value": {"from": "ann@example.com", "to": "claim+42@warranty.local", "text": _REPLY},
    },
}


def _body() -> dict[str, Any]:
    formats = [{"$ref": f"#/components/schemas/{name}"} for name in INBOUND_SCHEMAS]
    return {
        "required": True,
        "content": {"application/json": {"schema": {"oneOf": formats}, "examples": INBOUND_EXAMPLES}},
    }


def _header(name: str, description: str) -> dict[str, Any]:
    return {
        "name": name,
        "in": "header",
        "required": False,
        "description": description,
        "schema": {"type": "string"},
    }


def document_inbound(schema: dict[str, Any]) -> None:
    components = schema.setdefault("components", {})
    components.setdefault("securitySchemes", {}).update(SECURITY_SCHEMES)
    components.setdefault("schemas", {}).update(INBOUND_SCHEMAS)
    provider = schema.get("paths", {}).get(PROVIDER_INBOUND, {}).get("post")
    if provider is not None:
        provider["requestBody"] = _body()
        provider["security"] = [{"ResendSignature": []}, {"PostmarkSignature": []}, {"PostmarkBasic": []}]
    standard = schema.get("paths", {}).get(STANDARD_INBOUND, {}).get("post")
    if standard is not None:
        standard["requestBody"] = _body()
        standard["security"] = [{"StandardWebhooks": []}]
        standard.setdefault("parameters", []).extend(
            [
                _header("webhook-id", "The delivery's id (also the redelivery key); or `svix-id`."),
                _header("webhook-timestamp", "Unix seconds, within 5 minutes of now; or `svix-timestamp`."),
            ]
        )


STREAM_EXAMPLE = (
    ': connected\n\nid: 1043\ndata: {"type":"new_message","claimId":42,"message":{"id":"7","senderId":"3",'
    '"senderName":"Sam Supplier","message":"The part is on its way.","createdAt":"2026-01-15T10:00:00Z"}}\n\n'
)


def document_hub(schema: dict[str, Any]) -> None:
    operation = schema.get("paths", {}).get(HUB_PATH, {}).get("get")
    if operation is None:
        return
    parameters = [
        p
        for p in operation.get("parameters", [])
        if not (p["in"] == "query" and p["name"] == "authorization")
    ]
    for parameter in parameters:
        if parameter["in"] == "query" and parameter["name"] == "topic":
            parameter["required"] = True
            parameter["schema"] = {
                "type": "array",
                "items": {"type": "string", "minLength": 1, "examples": ["claims/42/messages"]},
                "minItems": 1,
                "maxItems": 50,
            }
            parameter["explode"] = True
        elif parameter["name"].lower() == "lasteventid" or parameter["name"] == "Last-Event-ID":
            parameter["schema"] = {"type": "string", "pattern": "^(earliest|[0-9]{1,19})$"}
    operation["parameters"] = parameters
    operation["security"] = [{"HTTPBearer": []}, {"HubQuery": []}, {"HubCookie": []}]
    ok = operation["responses"]["200"]
    ok["content"] = {"text/event-stream": {"schema": {"type": "string"}, "example": STREAM_EXAMPLE}}
    ok.setdefault("headers", {})["Last-Event-ID"] = {
        "description": "The newest event id when the stream opened (`earliest` when there is none).",
        "schema": {"type": "string"},
    }
