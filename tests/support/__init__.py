"""What the Python tests share (docs/test-suite.md): where the repository and the built
programs are (`paths`), running a command with a bound on its time (`proc`), texts
compared with a readable diff (`text`), the cases of a test file and its two runners,
pytest and the file's own `main` (`cases`), the language client (`lsp`), the project
of one retried call that two command-line tests run (`retrying`), and the checks of the
third-party notices (`notices`)."""
