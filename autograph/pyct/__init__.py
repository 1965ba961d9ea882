"""Syntax tools that know nothing of tensors: parsing a function's source, templates of
gast code, generating and loading code, and the activity and dataflow analyses."""
