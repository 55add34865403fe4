"""Secrets kept out of everything a run writes: the configured API key and anything shaped
like one are replaced before an error body or message reaches the terminal, JUnit XML, a
ledger, a cassette or a report."""

from __future__ import annotations

import re
from dataclasses import dataclass

#: What a secret is replaced with.
REDACTED = "[redacted]"
#: Strings shaped like API keys and bearer tokens, whoever's they are.
_KEY_SHAPED = re.compile(r"sk-ant-[A-Za-z0-9_\-]{8,}|\bsk-[A-Za-z0-9_\-]{20,}"
                         r"|(?i:bearer)\s+[A-Za-z0-9._~+/=\-]{16,}")
#: Shorter configured keys are left alone: replacing "local" or "x" would garble messages.
_MIN_SECRET = 8


@dataclass(frozen=True)
class Redactor:
    """Replaces the given secrets and key-shaped strings with ``[redacted]``."""

    secrets: tuple[str, ...] = ()

    def __call__(self, text: str) -> str:
        """``text`` with every secret replaced."""
        for secret in sorted(self.secrets, key=len, reverse=True):
            if len(secret) >= _MIN_SECRET:
                text = text.replace(secret, REDACTED)
        return _KEY_SHAPED.sub(REDACTED, text)


def redactor_for(api_key: str | None) -> Redactor:
    """The redactor of a run whose configured key is ``api_key``."""
    return Redactor((api_key,) if api_key else ())
