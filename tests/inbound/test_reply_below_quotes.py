"""Replies written below or between quoted lines (bottom-posting, interleaved answers) keep what the writer
wrote there; the quoted message itself, a quoted message's header block, our notification's marker and
signatures still go (docs/api.md, inbound email: reply text)."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from app.inbound.reply import OurAddresses, reply_from_html, reply_from_text
from app.notifications.render import REPLY_MARKER
from tests.factories.inbound import SECRETS, claim_address, generic, post_standard
from tests.inbound.support import bodies_of, make_claim

ATTRIBUTION = "On Mon, Apr 2, 2026 at 6:26 PM Sam <sam@supplier.example> wrote:"
OURS = OurAddresses(sender="notifications@warranty.local", mail_domain="warranty.local")
OUR_ATTRIBUTION = "On Tue, Nov 24, 2026 at 11:30 AM Warranty <notifications@warranty.local> wrote:"


def _quoted(*lines: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in lines)


# --- plain text


def test_a_reply_written_below_the_quote_is_kept() -> None:
    text = (
        f"{ATTRIBUTION}\n{_quoted('Is the kettle fixed?', '', 'Sam')}\n\nYes, it works again.\n\n-- \nAnn\n"
    )

    assert reply_from_text(text) == "Yes, it works again."


def test_answers_between_quoted_questions_are_kept_in_order() -> None:
    text = (
        f"Hi Sam,\n\n{ATTRIBUTION}\n"
        f"{_quoted('When did you buy it?')}\n\nIn March.\n\n"
        f"{_quoted('Do you still have the box?')}\n"
        "Yes, and the receipt.\nBoth are in the garage.\n"
        f"{_quoted('Thanks, Sam')}\n\n"
        "-- \nAnn Example\n+1 555 0100\n"
    )

    assert reply_from_text(text) == ("Hi Sam,\n\nIn March.\n\nYes, and the receipt.\nBoth are in the garage.")


def test_an_attribution_followed_only_by_the_quote_still_ends_the_reply() -> None:
    assert reply_from_text(f"Thanks!\n\n{ATTRIBUTION}\n{_quoted('Is it fixed?', '', 'Sam')}\n") == "Thanks!"
    assert reply_from_text(f"Thanks!\n\n{ATTRIBUTION}\n") == "Thanks!"


def test_an_attribution_above_an_unquoted_original_still_ends_the_reply() -> None:
    assert reply_from_text(f"Thanks!\n\n{ATTRIBUTION}\n\nIs it fixed?\nSam\n") == "Thanks!"


@pytest.mark.parametrize(
    "original",
    [
        "From: Sam <sam@supplier.example>\nSent: Monday, April 2, 2026 6:26 PM\nTo: Ann <ann@example.com>\n"
        "Subject: RE: Kettle\n\nIs it fixed?\n",
        "-----Original Message-----\nFrom: Sam\nSent: Monday, April 2, 2026 6:26 PM\n\nIs it fixed?\n",
        "________________________________\nFrom: Sam <sam@supplier.example>\nSent: 02 April 2026 18:26\n\n"
        "Is it fixed?\n",
    ],
    ids=["header-block", "original-message", "rule-and-headers"],
)
def test_an_unquoted_original_after_interleaved_answers_is_cut(original: str) -> None:
    text = f"{ATTRIBUTION}\n{_quoted('When?')}\n\nMonday.\n\n{original}"

    assert reply_from_text(text) == "Monday."


def test_a_phone_footer_after_a_bottom_posted_reply_is_dropped() -> None:
    text = f"{ATTRIBUTION}\n{_quoted('Is it fixed?')}\n\nYes.\n\nSent from my iPhone\n"

    assert reply_from_text(text) == "Yes."


# --- replies to the service's own notifications


def _our_email() -> str:
    return _quoted(REPLY_MARKER, "", "Sam wrote on claim #4:", "Can you be home on Monday?", "", "Warranty")


def test_a_reply_below_our_quoted_email_is_kept_with_what_was_written_above() -> None:
    text = f"See below.\n\n{OUR_ATTRIBUTION}\n{_our_email()}\n\nYes, all day.\n"

    assert reply_from_text(text, OURS) == "See below.\n\nYes, all day."


def test_answers_between_the_lines_of_our_quoted_email_are_kept() -> None:
    text = (
        f"Hello,\n\n{OUR_ATTRIBUTION}\n{_quoted(REPLY_MARKER, '', 'Sam wrote on claim #4:')}\n"
        f"{_quoted('Can you be home on Monday?')}\nYes.\n{_quoted('', 'Warranty')}\n"
    )

    assert reply_from_text(text, OURS) == "Hello,\n\nYes."


def test_below_our_unquoted_marker_everything_is_our_email() -> None:
    ours = f"{REPLY_MARKER}\n\nSam wrote on claim #4:\nCan you be home on Monday?\n\nWarranty\n"

    assert reply_from_text(f"Monday works.\n\n{ours}", OURS) == "Monday works."
    assert reply_from_text(ours, OURS) == ""  # a program that neither quotes nor lets one write above


def test_an_attribution_naming_us_above_our_unquoted_email_ends_the_reply() -> None:
    original = "Sam wrote on claim #4:\nCan you be home on Monday?\n"

    assert reply_from_text(f"Monday works.\n\n{OUR_ATTRIBUTION}\n\n{original}", OURS) == "Monday works."
    assert reply_from_text(f"{OUR_ATTRIBUTION}\n\n{original}", OURS) == ""


# --- HTML only: Gmail writes inline answers inside its quote container, between split blockquotes

GMAIL_ATTRIBUTION = (
    '<div dir="ltr" class="gmail_attr">On Mon, Apr 2, 2026 at 6:26 PM Sam &lt;sam@supplier.example&gt; '
    "wrote:<br></div>"
)
GMAIL_QUOTE = '<blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex;border-left:1px solid">'


def test_gmail_inline_answers_between_split_quotes_are_kept() -> None:
    html = (
        '<div dir="ltr">Hi Sam,</div><br><div class="gmail_quote gmail_quote_container">'
        f"{GMAIL_ATTRIBUTION}{GMAIL_QUOTE}<div>When did you buy it?</div></blockquote>"
        "<div>In March.</div><div><br></div>"
        f"{GMAIL_QUOTE}<div>Do you still have the box?</div></blockquote>"
        "<div>Yes, and the receipt.</div><div><br></div>"
        f"{GMAIL_QUOTE}<div>Thanks, Sam</div></blockquote></div>"
    )

    assert reply_from_html(html) == "Hi Sam,\n\nIn March.\n\nYes, and the receipt."


def test_a_gmail_reply_written_below_the_quote_is_kept() -> None:
    html = (
        f'<div class="gmail_quote">{GMAIL_ATTRIBUTION}{GMAIL_QUOTE}<div>Is it fixed?</div></blockquote>'
        '<div><br></div><div>Yes, it works again.</div><br><div class="gmail_signature">Ann</div></div>'
    )

    assert reply_from_html(html) == "Yes, it works again."


@pytest.mark.parametrize(
    "container",
    [
        # a Gmail quote container with the original unquoted inside it
        f'<div class="gmail_quote">{GMAIL_ATTRIBUTION}<div>Is it fixed?</div></div>',
        # Gmail's forward: the forwarded message is in the container, no blockquote
        '<div class="gmail_quote"><div dir="ltr" class="gmail_attr">---------- Forwarded message ---------'
        "<br>From: Sam &lt;sam@supplier.example&gt;<br>Date: Mon, Apr 2, 2026 at 6:26 PM<br></div><br>"
        "<div>Is it fixed?</div></div>",
    ],
    ids=["unquoted-original", "forward"],
)
def test_what_a_gmail_container_holds_before_any_quote_is_not_the_reply(container: str) -> None:
    assert (
        reply_from_html(f'<div dir="ltr">Thanks!</div><br>{container}<div>After</div>') == "Thanks!\n\nAfter"
    )


def test_a_quote_inside_a_forwarded_message_does_not_make_the_rest_of_it_the_reply() -> None:
    forwarded = (
        '<div class="gmail_quote"><div dir="ltr" class="gmail_attr">---------- Forwarded message ---------'
        "<br>From: Sam &lt;sam@supplier.example&gt;<br>Date: Mon, Apr 2, 2026 at 6:26 PM<br></div><br>"
        f'<div dir="ltr">Is it fixed?<div class="gmail_quote">{GMAIL_ATTRIBUTION}{GMAIL_QUOTE}Older'
        "</blockquote></div>Sam, still in the forwarded message</div></div>"
    )

    assert reply_from_html(f"<div>FYI</div>{forwarded}") == "FYI"


def test_a_hidden_element_in_a_quote_container_s_head_hides_nothing_after_it() -> None:
    html = (
        f'<div class="gmail_quote"><title>Re: Kettle</title>{GMAIL_ATTRIBUTION}{GMAIL_QUOTE}Is it fixed?'
        "</blockquote><div>Yes.</div></div><div>Ann</div>"
    )

    assert reply_from_html(html) == "Yes.\nAnn"


def test_proton_and_zoho_containers_keep_the_answer_below_their_quote() -> None:
    proton = (
        '<div class="protonmail_quote">------- Original Message -------<br>On Monday, April 2nd, 2026 at '
        '18:26, Sam &lt;sam@supplier.example&gt; wrote:<br><blockquote class="protonmail_quote" type="cite">'
        "Is it fixed?</blockquote><div>Yes.</div></div>"
    )
    zoho = (
        '<div class="zmail_extra"><div id="Zm-_Id_-Sgn1">---- On Mon, 02 Apr 2026 18:26:00 +0200 Sam '
        "wrote ----</div><blockquote>Is it fixed?</blockquote><div>Yes.</div></div>"
    )

    assert reply_from_html(proton) == "Yes."
    assert reply_from_html(zoho) == "Yes."


# --- through the webhook


@pytest.mark.settings(**SECRETS)
@pytest.mark.parametrize("part", ["text", "html"])
async def test_an_interleaved_reply_becomes_the_answers_only(
    app: FastAPI, client: httpx.AsyncClient, part: str
) -> None:
    customer, _supplier, claim = await make_claim(app)
    text = f"{ATTRIBUTION}\n{_quoted('When did you buy it?')}\nIn March.\n{_quoted('Box?')}\nYes.\n"
    html = (
        f'<div class="gmail_quote">{GMAIL_ATTRIBUTION}{GMAIL_QUOTE}When did you buy it?</blockquote>'
        f"<div>In March.</div>{GMAIL_QUOTE}Box?</blockquote><div>Yes.</div></div>"
    )
    payload = generic(customer.email, claim_address(claim.id), text=text if part == "text" else "", html=html)

    response = await post_standard(client, payload)

    assert response.status_code == 200, response.text
    assert response.json()["status"] == "processed"
    assert await bodies_of(app, claim.id) == ["In March.\nYes."]
