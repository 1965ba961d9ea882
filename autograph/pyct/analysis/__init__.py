"""Static analysis over gast trees: which names each statement reads and modifies, which are
live after it, and which are definitely defined before it. Run once per function; results
are kept in one `Annotations` table of `StatementInfo` records keyed by node."""
