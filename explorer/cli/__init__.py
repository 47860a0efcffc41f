"""The command line: parse, call the library, print; errors become one line and an exit code."""
