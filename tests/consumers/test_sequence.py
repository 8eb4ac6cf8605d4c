"""How a socket process follows a village by number (villages/consumers/sequence.py), with
no server: the next event, a missed one, too big a gap, duplicates, a quiet village whose
event was lost, and the layer coming back."""

from __future__ import annotations

from villages.consumers.sequence import MAX_GAP, Sequence, Step


def following(version: int) -> Sequence:
    """A process whose sockets were brought to `version` by its first read."""
    sequence = Sequence()
    sequence.read(version, whole=True)
    return sequence


def test_the_next_number_is_followed():
    sequence = following(10)
    assert sequence.event(11, since=10) is Step.FOLLOW


def test_a_missed_number_is_caught_up_from_the_database():
    sequence = following(10)
    assert sequence.event(12, since=11) is Step.CATCH_UP  # 11 never came
    sequence.read(12)
    assert sequence.event(11, since=10) is Step.DROP  # it comes late: nothing new in it


def test_too_big_a_gap_makes_the_sockets_read_for_themselves():
    sequence = following(10)
    assert sequence.event(10 + MAX_GAP + 1, since=10 + MAX_GAP) is Step.RELOAD
    assert sequence.event(10 + MAX_GAP, since=10 + MAX_GAP - 1) is Step.CATCH_UP


def test_a_duplicate_is_dropped_and_its_cues_are_handed_out_once():
    sequence = following(10)
    assert sequence.event(11, since=10) is Step.FOLLOW
    assert sequence.cues_due(11)
    sequence.read(11)
    assert sequence.event(11, since=10) is Step.DROP
    assert not sequence.cues_due(11), "the same objection must not sound twice"


def test_cues_of_an_event_read_before_it_arrived_are_still_handed_out():
    """Two commits in a row: the read for the first brought the second too; the second's
    event then brings nothing new, but its sound (a revote, the dawn) is still due."""
    sequence = following(10)
    assert sequence.event(11, since=10) is Step.FOLLOW and sequence.cues_due(11)
    sequence.read(12)
    assert sequence.event(12, since=11) is Step.DROP
    assert sequence.cues_due(12)


def test_what_happened_before_the_first_read_sounds_nothing():
    sequence = Sequence()
    assert sequence.event(5, since=4) is Step.WAIT  # during the first read
    sequence.read(5, whole=True)
    assert not sequence.behind()
    assert not sequence.cues_due(5)


def test_an_event_beyond_the_first_read_is_followed_after_it():
    sequence = Sequence()
    assert sequence.event(6, since=5) is Step.WAIT
    sequence.read(5, whole=True)  # the read was made before 6 was committed
    assert sequence.behind()


def test_a_quiet_villages_lost_event_is_read_at_the_second_heartbeat():
    sequence = following(10)
    assert sequence.heartbeat(10) is Step.DROP
    assert sequence.heartbeat(11) is Step.WAIT  # its event may be on its way
    assert sequence.heartbeat(11) is Step.CATCH_UP  # a whole heartbeat later: it was lost
    sequence.read(11)
    assert sequence.heartbeat(11) is Step.DROP


def test_an_event_that_came_between_two_heartbeats_is_not_read_twice():
    sequence = following(10)
    assert sequence.heartbeat(11) is Step.WAIT
    assert sequence.event(11, since=10) is Step.FOLLOW
    sequence.read(11)
    assert sequence.heartbeat(11) is Step.DROP


def test_a_busy_village_with_an_event_on_its_way_at_each_heartbeat_is_not_read():
    """Each heartbeat finds a newer version committed than followed, but the one it found
    before has come since: nothing was lost."""
    sequence = following(10)
    for version in range(11, 15):
        assert sequence.heartbeat(version) is Step.WAIT  # version's event on its way
        assert sequence.event(version, since=version - 1) is Step.FOLLOW
        sequence.read(version)
    assert sequence.heartbeat(15) is Step.WAIT
    assert sequence.heartbeat(15) is Step.CATCH_UP  # 15's event never came


def test_a_lost_stretch_too_long_is_a_reload_at_the_heartbeat():
    sequence = following(10)
    sequence.heartbeat(10 + MAX_GAP + 5)
    assert sequence.heartbeat(10 + MAX_GAP + 5) is Step.RELOAD


def test_the_layer_back_after_a_cut_resyncs_every_village_read_so_far():
    assert following(10).resync() is Step.CATCH_UP
    assert Sequence().resync() is Step.WAIT  # its first read is still to come
