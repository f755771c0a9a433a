"""Upkeep: update-db, watch, the update worker, status, doctor, warm-up and moving the index."""
