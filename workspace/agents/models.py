"""The org's model settings and the record of every model attempt (docs/ai.md)."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, Text, select
from sqlalchemy.orm import Mapped, mapped_column

from workspace.extensions import db
from workspace.types import UTCDateTime, created_at_column, utcnow, uuid_pk


class AiSettings(db.Model):
    """Where the org's own OpenAI-compatible model lives (one row per org)."""

    __tablename__ = "ai_settings"

    id: Mapped[uuid.UUID] = uuid_pk()
    #: Unique: one model endpoint per org.
    org_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("orgs.id", ondelete="CASCADE"), unique=True
    )
    #: e.g. ``https://api.openai.com/v1``; ``/chat/completions`` is appended.
    base_url: Mapped[str] = mapped_column(String(500))
    model: Mapped[str] = mapped_column(String(200))
    #: The API key, sealed with this row's id (docs/security.md); never returned.
    api_key_sealed: Mapped[str | None] = mapped_column(Text)
    #: Azure OpenAI's ``api-version`` query parameter; set only for Azure deployments.
    api_version: Mapped[str | None] = mapped_column(String(40))
    #: What the provider was learnt to refuse, per model (JSON, docs/ai.md#providers):
    #: e.g. ``{"o4-mini": {"max_completion_tokens": true, "temperature": false}}``.
    quirks: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = created_at_column()
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), default=utcnow, onupdate=utcnow)

    @property
    def has_api_key(self) -> bool:
        return bool(self.api_key_sealed)

    def __repr__(self) -> str:  # never the key
        return f"<AiSettings {self.base_url} {self.model} org={self.org_id}>"


class AiRun(db.Model):
    """One ask-a-chart attempt, used or not: the audit trail and the credit ledger."""

    __tablename__ = "ai_runs"
    __table_args__ = (Index("ix_ai_runs_org_created", "org_id", "created_at"),)

    id: Mapped[uuid.UUID] = uuid_pk()
    org_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("orgs.id", ondelete="CASCADE"))
    #: Who asked: a person or an agent.
    account_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("accounts.id", ondelete="SET NULL")
    )
    #: ``person`` or ``agent``, copied so the ledger reads without a join.
    actor_kind: Mapped[str] = mapped_column(String(16), default="person")
    prompt: Mapped[str] = mapped_column(Text)
    #: The model asked; null when no model call was made.
    model: Mapped[str | None] = mapped_column(String(200))
    #: The provider's answer text (or error body), truncated; never the key.
    raw_answer: Mapped[str | None] = mapped_column(Text)
    #: ok, offline, no_match, invalid_answer, provider_error, timeout, credits_exhausted,
    #: key_unreadable (see docs/ai.md).
    outcome: Mapped[str] = mapped_column(String(32))
    #: True when the offline interpreter chose the chart (no model configured, or the model failed).
    offline: Mapped[bool] = mapped_column(default=False)
    #: True when the default chart was returned.
    fallback: Mapped[bool] = mapped_column(default=False)
    metric: Mapped[str] = mapped_column(String(16))
    dimension: Mapped[str] = mapped_column(String(16))
    title: Mapped[str] = mapped_column(String(200))
    prompt_tokens: Mapped[int] = mapped_column(default=0)
    completion_tokens: Mapped[int] = mapped_column(default=0)
    latency_ms: Mapped[int] = mapped_column(default=0)
    credits_charged: Mapped[int] = mapped_column(default=0)
    created_at: Mapped[datetime] = created_at_column()

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


def settings_for(org_id: uuid.UUID) -> AiSettings | None:
    return db.session.scalar(select(AiSettings).where(AiSettings.org_id == org_id))
