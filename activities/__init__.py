"""Temporal activities: every side effect of a photo job (database, storage, image work, notices)."""
