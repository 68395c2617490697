"""Route modules of the HTTP API, one router each."""
