"""The plugin's own tests, one folder per stage of the package."""
