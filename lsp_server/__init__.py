"""TritonRL language server (pygls): a thin adapter over `training` and `verifier` (see `server`)."""
