"""The core: editions and cards, the fact vocabulary, observations, deals and records. Imports nothing above it."""
