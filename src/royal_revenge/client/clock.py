"""The clocks of the local table (shared with the server): see :mod:`royal_revenge.clock`."""

from ..clock import Clock, FakeClock, SystemClock

__all__ = ["Clock", "FakeClock", "SystemClock"]
