"""Outbox kinds: what an outbox row asks the worker to do, each with its handler (app.notifications.delivery,
app.webhooks.delivery). `channel.notification`: the channel names the timeline entry of a claim's
notification (app.timeline.record)."""

from __future__ import annotations

from enum import StrEnum


class OutboxKind(StrEnum):
    EMAIL_CLAIM_MESSAGE = "email.claim_message"  # {"messageId", "claimId", "recipientId"}
    PUSH_CLAIM_MESSAGE = "push.claim_message"
    EMAIL_CLAIM_STATUS = "email.claim_status"  # {"claimId", "status", "recipientId"}, + outcome when resolved
    PUSH_CLAIM_STATUS = "push.claim_status"
    EMAIL_EXPIRY_ALERT = "email.expiry_alert"  # {"productId", "thresholdDays", "expiresOn", "recipientId"}
    PUSH_EXPIRY_ALERT = "push.expiry_alert"
    EMAIL_PASSWORD_RESET = "email.password_reset"  # {"email"}
    WEBHOOK_DELIVER = "webhook.deliver"  # {"messageId"}: the webhook delivery's webhook-id
