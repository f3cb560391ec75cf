"""Build opkg packages (.ipk) from the feed's own package Makefiles, without an OpenWrt SDK: the Makefiles' build
and install recipes are read and carried out here (makefile.py, recipe.py), and the package files are written the
way OpenWrt's ipkg-build writes them, byte for byte reproducible (archive.py). `python -m ipk --help`."""
