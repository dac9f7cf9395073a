"""How pages are kept: the LMDB environment, its posting tables and page records. The only package
that imports ``lmdb``; everything above it talks to an ``IndexView`` inside one transaction."""
