"""Running benchmark items: one runner per product (QA and GANDR), the backend and the
session's end."""
