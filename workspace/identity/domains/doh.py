"""TXT lookups over DNS-over-HTTPS, JSON flavour (Google's ``/resolve`` API, also
served by Cloudflare). Everything goes through the outbound guard.

Answer shape: ``{"Status": 0, "Answer": [{"name", "type", "data"}, ...]}``. Status is
the DNS RCODE (RFC 1035 §4.1.1; 3 = NXDOMAIN). ``Answer`` may be absent, or hold
CNAME (type 5) entries before the TXT (type 16) ones; only type 16 counts. Some
resolvers return TXT data inside quotes and split long records into several quoted
character-strings (RFC 1035 §3.3.14); they are joined with no separator.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import current_app

from workspace.security.outbound import OutboundError, fetch

TXT = 16
NXDOMAIN = 3


class DnsLookupError(Exception):
    """The resolver could not give an answer (unreachable, slow, garbled, SERVFAIL)."""


@dataclass(frozen=True)
class TxtAnswer:
    #: The TXT strings found; empty when the name exists but has none, or does not exist.
    records: list[str]
    nxdomain: bool = False


def parse_txt_data(data: str) -> str:
    """One TXT record's text: unquoted, chunks joined, ``\\"`` and ``\\\\`` unescaped."""
    data = data.strip()
    if not data.startswith('"'):
        return data
    out, chunk, in_quotes, i = [], [], False, 0
    while i < len(data):
        ch = data[i]
        if in_quotes and ch == "\\" and i + 1 < len(data):
            chunk.append(data[i + 1])
            i += 2
            continue
        if ch == '"':
            if in_quotes:
                out.append("".join(chunk))
                chunk = []
            in_quotes = not in_quotes
        elif in_quotes:
            chunk.append(ch)
        i += 1
    if in_quotes:  # unbalanced quote: keep what we have rather than guess
        out.append("".join(chunk))
    return "".join(out)


def lookup_txt(domain: str) -> TxtAnswer:
    """The TXT records of exactly ``domain`` (no parent or child names)."""
    base = current_app.config["DOH_URL"].rstrip("/")
    try:
        response = fetch(
            "GET",
            f"{base}/resolve",
            params={"name": domain, "type": "TXT"},
            headers={"Accept": "application/dns-json"},
        )
    except OutboundError as exc:
        raise DnsLookupError(f"The DNS resolver could not be reached: {exc}") from exc
    if response.status_code != 200:
        raise DnsLookupError(
            f"The DNS resolver answered HTTP {response.status_code}; try again in a minute."
        )
    try:
        payload = response.json()
    except ValueError as exc:
        raise DnsLookupError("The DNS resolver sent an answer that is not JSON.") from exc
    if not isinstance(payload, dict) or not isinstance(payload.get("Status"), int):
        raise DnsLookupError("The DNS resolver sent an answer in an unknown format.")
    status = payload["Status"]
    if status == NXDOMAIN:
        return TxtAnswer(records=[], nxdomain=True)
    if status != 0:
        raise DnsLookupError(
            f"The DNS resolver could not look the domain up (DNS status {status}); "
            "try again in a minute."
        )
    answers = payload.get("Answer") or []
    if not isinstance(answers, list):
        raise DnsLookupError("The DNS resolver sent an answer in an unknown format.")
    records = [
        parse_txt_data(str(a.get("data", "")))
        for a in answers
        if isinstance(a, dict) and a.get("type") == TXT
    ]
    return TxtAnswer(records=records)
