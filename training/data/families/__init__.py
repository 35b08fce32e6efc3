"""Op families of the generated corpus: each writes a problem, its plan and a Triton candidate."""
