"""Bundled demo data (HotpotQA sample, CC BY-SA 4.0)."""
