"""The `agent-zot` command line (click): thin commands over services/."""
