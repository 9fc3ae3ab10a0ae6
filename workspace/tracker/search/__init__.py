"""The org-wide task search: every project's tasks under one PQL filter, read-only
(where an org-wide analytics figure drills down to, docs/analytics.md)."""
