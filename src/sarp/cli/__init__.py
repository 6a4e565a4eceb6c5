"""The `sarp` command line: one module per subcommand, `main(argv) -> int` in main.py."""
