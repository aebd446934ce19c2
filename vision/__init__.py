"""Vision: camera frames in, dice faces out. Plain functions on numpy BGR images; knows nothing of games."""
