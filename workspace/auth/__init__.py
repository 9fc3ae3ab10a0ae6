"""Who is calling: browser sessions, local passwords and personal access tokens."""
