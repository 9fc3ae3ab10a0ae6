"""Cross-cutting security: sealing secrets, hashing tokens, permissions, outbound guard."""
