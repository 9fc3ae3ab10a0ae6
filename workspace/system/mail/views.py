"""Mail on the System pages (docs/delivery.md#mail): the instance's SMTP settings, a
test mail that reports the server's answer, and the outbox. Operators only, like the
rest of ``/system``: the outbox holds every mail the instance would have sent, sign-in
and invitation links included, so no org role reads it."""

from __future__ import annotations

import uuid

from flask import Blueprint, flash, redirect, request, url_for

from workspace.auth.guards import form_again, page, render
from workspace.auth.sessions import current_account
from workspace.delivery import mail, outbox, settings
from workspace.delivery.schemas import ConfirmForm, MailSettingsIn, TestMailIn
from workspace.system.views import operators_only

bp = Blueprint("system_mail", __name__, url_prefix="/system/mail")

SECURITY_CHOICES = [
    ("starttls", "STARTTLS (usually port 587)"),
    ("tls", "TLS from the start (usually port 465)"),
    ("none", "None: plain text (a relay on this machine only)"),
]
#: The outbox's list shows this many, newest first.
OUTBOX_PAGE = 100


def _mail_page(*, errors=None, values=None, result=None, status=200):
    row = settings.current()
    saved = {
        "host": row.host if row else "",
        "port": row.port if row else 587,
        "security": row.security if row else "starttls",
        "username": (row.username or "") if row else "",
        "from_address": row.from_address if row else "",
    }
    account = current_account()
    return render(
        "system/mail.html",
        status=status,
        row=row,
        form=(values or {}).get("settings") or saved,
        test_form=(values or {}).get("test") or {"to": account.email if account else ""},
        errors=errors or {},
        result=result,
        choices=SECURITY_CHOICES,
        outbox_count=outbox.count(),
    )


@bp.get("")
@operators_only
@page()
def index():
    """The SMTP settings, the test mail and how many mails the outbox holds."""
    return _mail_page()


@bp.post("")
@operators_only
@page(form=MailSettingsIn, invalid=form_again(_mail_page, "settings"))
def save(form: MailSettingsIn):
    """Save the settings; a blank password keeps the stored one."""
    row = settings.save(form)
    flash(f"Mail settings saved: {row.host}:{row.port}. Send a test mail to check them.", "success")
    return redirect(url_for("system_mail.index"), code=303)


@bp.post("/test")
@operators_only
@page(form=TestMailIn, invalid=form_again(_mail_page, "test"))
def test(form: TestMailIn):
    """One mail to the address given, through the saved settings (or into the
    outbox); the page says what the server answered."""
    result = mail.send_test(form.to)
    return _mail_page(result=result, values={"test": request.form})


@bp.get("/remove")
@operators_only
@page()
def confirm_remove():
    """What removing the settings changes, before anything does."""
    return render("system/mail_confirm.html", what="remove")


@bp.post("/remove")
@operators_only
@page(form=ConfirmForm, checkboxes=("confirm",))
def remove(form: ConfirmForm):
    """Forget the SMTP settings once confirmed: mail goes to the outbox again."""
    if not form.confirm:
        return redirect(url_for("system_mail.confirm_remove"), code=303)
    if settings.remove():
        flash("Mail settings removed: mail goes to the outbox.", "success")
    return redirect(url_for("system_mail.index"), code=303)


@bp.get("/outbox", endpoint="outbox")
@operators_only
@page()
def outbox_list():
    """The newest mails the instance would have sent."""
    total = outbox.count()
    mails = outbox.newest(OUTBOX_PAGE)
    return render("system/outbox.html", mails=mails, total=total, keep=mail.OUTBOX_KEEP,
                  days=mail.OUTBOX_DAYS)  # fmt: skip


@bp.get("/outbox/<uuid:mail_id>")
@operators_only
@page()
def outbox_mail(mail_id: uuid.UUID):
    """One mail as it would have gone out."""
    row = outbox.get(mail_id)
    return render("system/outbox_mail.html", m=row)


@bp.get("/outbox/clear")
@operators_only
@page()
def confirm_clear():
    """What clearing deletes, before anything is."""
    total = outbox.count()
    return render("system/mail_confirm.html", what="clear", total=total)


@bp.post("/outbox/clear")
@operators_only
@page(form=ConfirmForm, checkboxes=("confirm",))
def clear(form: ConfirmForm):
    """Delete every outbox mail once confirmed."""
    if not form.confirm:
        return redirect(url_for("system_mail.confirm_clear"), code=303)
    count = outbox.clear()
    flash(f"The outbox was cleared ({count} mails deleted).", "success")
    return redirect(url_for("system_mail.outbox"), code=303)
