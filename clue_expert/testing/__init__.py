"""Test helpers shipped apart from the product code: independent oracles, random games, the rule scenario runner."""
