"""Model access: the one client, backends, retries, structured output, the ledger, prices,
prompts and cassettes."""
