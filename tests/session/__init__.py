"""Tests of the real-time table (session layer) without a server."""
