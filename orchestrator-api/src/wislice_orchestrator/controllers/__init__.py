"""The three ONOS controllers behind one interface: a REST client for the real apps (an in-memory fake for tests lives
in tests/fake_controllers.py)."""

from .base import ControllerError, Controllers

__all__ = ["ControllerError", "Controllers"]
