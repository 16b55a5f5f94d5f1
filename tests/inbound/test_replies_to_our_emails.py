"""Replies to the emails the service really sends: each is received by an SMTP server on 127.0.0.1, quoted
the way Gmail, Outlook and Apple Mail quote, posted back through the inbound webhook, and only the new
text becomes the claim message (contract 13.7: the reply marker, attributions naming our addresses)."""

from __future__ import annotations

import html as html_lib
from collections.abc import Callable
from email.message import EmailMessage

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.models import Claim, Message
from app.notifications.email import SmtpSender
from app.notifications.render import REPLY_MARKER
from app.worker_assembly import build_worker
from tests.factories.claims import create_message
from tests.factories.inbound import SECRETS, claim_address, generic, post_standard
from tests.factories.notifications import notify_message
from tests.inbound.support import CUSTOMER, make_claim
from tests.support.smtp import SMTP_URL, Inbox

pytestmark = pytest.mark.settings(**SECRETS)

ANSWER = "Monday works for me.\nI will be home all day."
WHEN = "Tue, Nov 24, 2026 at 11:30 AM"
OURS = "Warranty <notifications@warranty.local>"


async def _email_we_sent(app: FastAPI, inbox: Inbox) -> tuple[Claim, EmailMessage]:
    customer, supplier, claim = await make_claim(app, name="Kettle")
    message = await create_message(app, claim, supplier, body="We shipped the part.\nIt arrives Monday.")
    await notify_message(app, message, [customer])
    mailer = SmtpSender(SMTP_URL, timeout=5)
    worker = build_worker(app.state.settings, app.state.sessionmaker, app.state.storage, mailer=mailer)
    await worker.run_until_idle()
    [sent] = inbox.to(CUSTOMER)
    return claim, sent


def _parts(sent: EmailMessage) -> tuple[str, str]:
    text, html = sent.get_body(preferencelist=("plain",)), sent.get_body(preferencelist=("html",))
    assert text is not None and html is not None
    return text.get_content(), html.get_content()


def _quoted(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in text.splitlines())


def _body_of(html: str) -> str:
    return html.split("<body", 1)[1].split(">", 1)[1].rsplit("</body>", 1)[0]


def gmail(text: str, html: str) -> tuple[str, str]:
    attribution = f"On {WHEN} {OURS} wrote:"
    reply_html = (
        f'<div dir="ltr">{ANSWER.replace(chr(10), "<br>")}</div><br><div class="gmail_quote">'
        f'<div dir="ltr" class="gmail_attr">{html_lib.escape(attribution)}<br></div>'
        '<blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex;border-left:1px solid '
        f'rgb(204,204,204);padding-left:1ex">{_body_of(html)}</blockquote></div>'
    )
    return f"{ANSWER}\n\n{attribution}\n\n{_quoted(text)}\n", reply_html


def outlook(text: str, html: str) -> tuple[str, str]:
    header = (
        f"From: {OURS}\nSent: Tuesday, November 24, 2026 11:30 AM\nTo: Ann <{CUSTOMER}>\n"
        "Subject: New message on your claim"
    )
    reply_html = (
        f"<div>{ANSWER.replace(chr(10), '<br>')}</div>"
        '<hr style="display:inline-block;width:98%" tabindex="-1"><div id="divRplyFwdMsg" dir="ltr">'
        f"<b>From:</b> {html_lib.escape(OURS)}<br><b>Sent:</b> Tuesday, November 24, 2026 11:30 AM</div>"
        f"{_body_of(html)}"
    )
    return f"{ANSWER}\n\n________________________________\n{header}\n\n{text}", reply_html


def apple_mail(text: str, html: str) -> tuple[str, str]:
    attribution = f"On 24 Nov 2026, at 11:30, {OURS} wrote:"
    reply_html = (
        f'<div>{ANSWER.replace(chr(10), "<br>")}</div><div><br><blockquote type="cite">'
        f"<div>{html_lib.escape(attribution)}</div><br>{_body_of(html)}</blockquote></div>"
    )
    return f"{ANSWER}\n\n> {attribution}\n>\n{_quoted(text)}\n", reply_html


CLIENTS: dict[str, Callable[[str, str], tuple[str, str]]] = {
    "Gmail": gmail,
    "Outlook": outlook,
    "Apple Mail": apple_mail,
}


async def _post_reply(client: httpx.AsyncClient, claim: Claim, text: str, html: str) -> str:
    answer = await post_standard(client, generic(CUSTOMER, claim_address(claim.id), text=text, html=html))
    assert answer.status_code == 200, answer.text
    assert answer.json()["status"] == "processed", answer.json()
    return str(answer.json()["messageId"])


async def _body(app: FastAPI, message_id: str) -> str:
    async with app.state.sessionmaker() as session:
        return str(await session.scalar(select(Message.body).where(Message.id == int(message_id))))


async def test_every_email_we_send_carries_the_reply_marker_above_its_text(
    app: FastAPI, inbox: Inbox
) -> None:
    _claim, sent = await _email_we_sent(app, inbox)
    text, html = _parts(sent)

    assert text.splitlines()[0] == REPLY_MARKER
    assert html_lib.escape(REPLY_MARKER) in html
    assert html.index(html_lib.escape(REPLY_MARKER)) < html.index("We shipped the part.")


@pytest.mark.parametrize("program", CLIENTS)
@pytest.mark.parametrize("part", ["text", "html"])
async def test_a_reply_quoting_our_email_becomes_only_the_answer(
    app: FastAPI, client: httpx.AsyncClient, inbox: Inbox, program: str, part: str
) -> None:
    claim, sent = await _email_we_sent(app, inbox)
    reply_text, reply_html = CLIENTS[program](*_parts(sent))

    message_id = await _post_reply(client, claim, reply_text if part == "text" else "", reply_html)

    assert await _body(app, message_id) == ANSWER


async def test_our_email_pasted_unquoted_is_cut_at_the_marker(
    app: FastAPI, client: httpx.AsyncClient, inbox: Inbox
) -> None:
    claim, sent = await _email_we_sent(app, inbox)
    text, _html = _parts(sent)

    # A program that neither quotes nor writes an attribution: only the marker says where ours starts.
    message_id = await _post_reply(client, claim, f"{ANSWER}\n\n{text}", "")

    assert await _body(app, message_id) == ANSWER


@pytest.mark.parametrize(
    "attribution",
    [
        f"{OURS} kirjoitti:",  # no date: a general attribution would need one before an unquoted original
        f"Le mardi, {OURS} a écrit :",
        "Warranty <\nnotifications@warranty.local>:",
        "From: Warranty <claim+{claim}@warranty.local>",
    ],
)
async def test_an_attribution_naming_our_address_cuts_in_any_language(
    app: FastAPI, client: httpx.AsyncClient, inbox: Inbox, attribution: str
) -> None:
    claim, sent = await _email_we_sent(app, inbox)
    text, _html = _parts(sent)
    original = text.split(REPLY_MARKER, 1)[1]  # a program that dropped the marker line

    message_id = await _post_reply(
        client, claim, f"{ANSWER}\n\n{attribution.format(claim=claim.id)}\n\n{original}", ""
    )

    assert await _body(app, message_id) == ANSWER
