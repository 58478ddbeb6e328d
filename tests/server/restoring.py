"""What "a restored table equals the one before the restart" means, for the restore tests.

Everything a restart must not change is compared exactly: the game, the version, the seats, the host, the phase,
the game number and its deal, the log (numbers, words and marks), the remembered action ids, and the chat, the
muted seats, the rematch requests and whether the lobby was closed. Connections do not
survive a restart (every person's seat is disconnected), and the clocks are shifted on purpose: each resumes with
the time it had left when the table last ran (its last change, or the end of an earlier pause), counted from the
end of the restart's pause for reconnecting (docs/protocol.md, Reconnecting).
"""

from __future__ import annotations

from royal_revenge.session import Phase, SeatKind, Table
from royal_revenge.session.table import RESTART_GRACE_SECONDS

CLOCKS = ("scepter", "decision", "bot", "catch", "next_round")


def assert_restored(before: Table, restored: Table, now: float) -> None:
    """``restored`` (loaded at ``now``) is ``before`` as it was when the server went away."""
    assert restored.code == before.code
    assert restored.version == before.version
    assert restored.phase is before.phase
    assert restored.host == before.host
    assert restored.game_no == before.game_no
    assert restored.settings == before.settings
    assert restored.origin == before.origin
    assert restored.changed_at == before.changed_at
    if before.game is None:
        assert restored.game is None
    else:
        assert restored.game is not None and restored.game.state == before.game.state
        assert [tuple(row) for row in restored.moves.rows()] == [tuple(row) for row in before.moves.rows()]
    for seat in (None, *range(len(before.seats))):
        assert restored.log_view(seat) == before.log_view(seat), seat
        assert restored.legal_view(seat) == before.legal_view(seat), seat
    assert {seat: list(ids) for seat, ids in restored.recent.items()} == {
        seat: list(ids) for seat, ids in before.recent.items() if ids}
    # The chat, the muted seats, the rematch requests and a lobby's closing (issue 16) are kept with the table.
    for key in ("chat", "muted", "rematch_requests", "closed"):
        assert restored.shared_view()[key] == before.shared_view()[key], key
    assert restored.created_at == before.created_at
    assert restored.social.chat_no == before.social.chat_no

    playing = before.phase is Phase.PLAYING
    people = any(seat.kind is SeatKind.HUMAN for seat in before.seats)
    resume = now + RESTART_GRACE_SECONDS if playing and people else now
    ran = before.changed_at if before.changed_at is not None else now
    if playing and before.resume_at is not None:
        ran = max(ran, before.resume_at)
    assert len(restored.seats) == len(before.seats)
    for index, (mine, theirs) in enumerate(zip(restored.seats, before.seats, strict=True)):
        assert not mine.connected, index
        for name in ("kind", "name", "age", "level", "token_hash", "timeouts", "autopilot"):
            assert getattr(mine, name) == getattr(theirs, name), (index, name)
        if theirs.kind is not SeatKind.HUMAN:
            assert mine.disconnected_at == theirs.disconnected_at, index
        elif not playing:
            assert mine.disconnected_at is not None, index  # (no clock runs: when matters only from a rematch on)
        elif theirs.connected or theirs.disconnected_at is None:
            assert mine.disconnected_at == resume, index  # away from when the table resumes
        else:
            assert mine.disconnected_at is not None
            assert abs(mine.disconnected_at - (theirs.disconnected_at + resume - ran)) < 1e-6, index

    assert restored.resume_at == (resume if playing else None)  # (with nobody to wait for: resumed at once)
    for name in CLOCKS:
        theirs_due = getattr(before.deadlines, name)
        mine_due = getattr(restored.deadlines, name)
        if not playing:
            assert mine_due is None, name
        elif theirs_due is None:
            # The bots that looked at an UNO-less player and let them go look again after a restart.
            assert mine_due is None or name == "catch", name
        else:
            assert mine_due is not None, name
            expected = resume + max(0.0, theirs_due - ran)
            decider = restored.game.state.decider if restored.game is not None else None
            if name == "decision" and decider is not None:
                player = restored.seats[decider]
                if player.kind is SeatKind.HUMAN and not player.autopilot and player.disconnected_at is not None:
                    # (a person's decision ends no later than their grace, which runs from the end of the pause for
                    # someone connected when the server went away)
                    expected = min(expected, max(player.disconnected_at + restored.settings.grace_seconds, resume))
            assert abs(mine_due - expected) < 1e-6, (name, mine_due, theirs_due, ran)
