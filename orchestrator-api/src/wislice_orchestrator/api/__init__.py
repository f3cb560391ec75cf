"""REST resources under /api/v1 (one blueprint per area)."""
