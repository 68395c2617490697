"""Reading vault files: scanning, parsing by file type, and the incremental indexer."""
