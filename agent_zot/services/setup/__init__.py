"""Setup: client configuration, model installs and the demo library."""
