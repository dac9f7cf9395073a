"""URL rules: aliases of one host learnt from its duplicate pairs, proven, then pruned."""
