"""The structured legal index (navindex format): node trees, graphs, flags and files."""
