"""Collections and tags: the `zot_manage_collections` and `zot_manage_tags` tools."""
