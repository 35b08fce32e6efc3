"""Training data: the generated corpus (problems, plans, verified Triton candidates) and feedback."""
