"""UNO Royal Revenge: the rules engine, bots, online tables and environments.

The rules live in :mod:`royal_revenge.engine`; every other layer talks to it through
actions, observations and events.
"""

__version__ = "0.1.0"
