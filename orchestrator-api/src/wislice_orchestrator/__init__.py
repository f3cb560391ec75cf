"""WiSlice orchestrator: tenant REST API, slice sagas across the ONOS controllers, operator dashboard."""

__version__ = "0.1.0"
