"""WiSlice testbed: root resources for tests (namespaces, veths, processes, a private dockerd, hugepages).

Every resource registers its cleanup with :mod:`wislice_testbed.janitor` when it is created, so it is removed by
the owning fixture's finalizer, or at interpreter exit / SIGTERM if the finalizer never ran.
"""

__all__ = ["__version__"]
__version__ = "0.1.0"
