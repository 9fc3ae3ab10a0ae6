"""A project's settings and members pages: name, description, archive; states,
cycles and modules; manual and synced memberships."""
