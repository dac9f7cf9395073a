"""What a page is reduced to: decoded text and terms, their hashes, shingles, min-hash
super-shingles, simhash, and the fingerprint that carries them. Pure functions of the page and the
configuration: nothing here reads or writes the index."""
