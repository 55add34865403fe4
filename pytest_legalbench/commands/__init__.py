"""The subcommands of ``legalbench``, one module each, registered by ``cli.build_parser``."""
