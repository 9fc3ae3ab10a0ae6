"""A task's own page at ``/o/<org>/tasks/<KEY-123>``: every field edited in place,
comments and the activity history in one timeline, archive and delete."""
