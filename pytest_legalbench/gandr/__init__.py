"""GANDR: claim-audited answer generation (CREAC drafts, audit tools, a separate Critic),
its five baselines, and how their answers are scored."""
