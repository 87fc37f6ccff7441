"""Core ML bundle build/load (later)."""
