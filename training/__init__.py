"""TritonRL training package: prompts, backends, data, feedback store, SFT, RL with HRD, evaluation.

Thin for now: the verifier is the foundation everything here will stand on.
"""
