"""WiSlice MEC agent: runs vNFs as Docker containers, wires them to the node's pof-switch, reports to the
nfv-controller (spec/agent/PROTOCOL.md)."""

__version__ = "0.1.0"
SOFTWARE = f"wislice-mec-agent {__version__}"
