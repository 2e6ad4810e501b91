"""Adapters between agent hosts' wire formats and the model (DESIGN §7)."""
