"""The online tables server: FastAPI over the session layer, persisted with SQLAlchemy."""

from .app import create_app
from .hub import Clock, FakeClock, Hub, SystemClock
from .store import Store, StoreError, database_url

__all__ = ["Clock", "FakeClock", "Hub", "Store", "StoreError", "SystemClock", "create_app", "database_url"]
