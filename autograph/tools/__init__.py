"""Developer tools run as modules (`python -m autograph.tools.<tool>`)."""
