"""A project's members page (``views``)."""
