"""Tests of the online tables server over real sockets."""
