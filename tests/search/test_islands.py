"""Islands on their own: ranking, elites, tournament selection and migration between islands."""

from __future__ import annotations

import random
from collections import Counter

from akg_rag.search.fitness import Fitness
from akg_rag.search.islands import Candidate, Island, migrate


def cand(name: str, value: float, status: str = "correct", born: int = 0) -> Candidate:
    """A verified candidate whose source is just its name (keys differ by name)."""
    return Candidate(f"# {name}\n", {}, "seed", born, fitness=Fitness(value if status == "correct" else 0.0, status))


def test_ranking_elites_and_best_skip_incorrect_kernels():
    fast_but_wrong = cand("wrong", 0.0, "incorrect")
    old, young = cand("old", 2.0, born=0), cand("young", 2.0, born=3)
    isl = Island(0, [young, fast_but_wrong, cand("slow", 0.5), old])
    assert [c.source for c in isl.ranked()][:3] == ["# old\n", "# young\n", "# slow\n"]  # age breaks ties
    assert isl.best() is old
    assert fast_but_wrong not in isl.elites(10) and len(isl.elites(10)) == 3
    assert isl.members[isl.worst_index()] is fast_but_wrong
    assert Island(1, [cand("a", 0, "compile_error")]).best() is None


def test_tournament_prefers_fitter_members_and_never_picks_the_worst():
    a, b, c = cand("a", 5.0), cand("b", 1.0), cand("c", 0.0, "incorrect")
    isl = Island(0, [c, b, a])
    rng = random.Random(0)
    picks = Counter(isl.select(rng).source for _ in range(600))
    assert picks["# c\n"] == 0  # with tournaments of two the worst of three always loses
    assert picks["# a\n"] > picks["# b\n"] > 0


def test_migration_copies_each_best_to_the_next_island_in_place_of_its_worst():
    a, b = cand("a", 5.0), cand("b", 1.0)
    c, d = cand("c", 3.0), cand("d", 0.0, "incorrect")
    e, f = cand("e", 0.0, "incorrect"), cand("f", 0.0, "runtime_error")
    islands = [Island(0, [a, b]), Island(1, [c, d]), Island(2, [e, f])]
    moves = migrate(islands, generation=4)
    assert [(m.source, m.target, m.key, m.replaced) for m in moves] == [
        (0, 1, a.key, d.key),   # a replaces island 1's incorrect member
        (1, 2, c.key, f.key),   # c (the snapshot best of island 1, not a) replaces island 2's worst
    ]                           # island 2 has nothing correct: it sends no migrant
    assert [m.source for m in islands[1].members] == ["# c\n", "# a\n"]
    assert moves[0].evicted is d and moves[0].to_dict()["evicted"]["status"] == "incorrect"
    migrant = islands[1].members[1]
    assert migrant.origin == "migrant:0" and migrant.born == 4 and migrant.fitness.value == 5.0
    assert migrant is not a  # a copy: the source island keeps its own member
    assert islands[0].members == [a, b]
    # The migrant competes in its new island: it is the elite and wins tournaments there.
    assert islands[1].elites(1) == [migrant]
    rng = random.Random(1)
    assert any(islands[1].select(rng) is migrant for _ in range(10))


def test_migration_skips_a_source_already_present_and_protects_a_lone_elite():
    a = cand("a", 5.0)
    islands = [Island(0, [a, cand("x", 1.0)]), Island(1, [cand("a", 5.0), cand("y", 0.5)])]
    moves = migrate(islands, 2)
    assert moves[0].replaced is None and moves[0].note == "already present"
    p, q = cand("p", 1.0), cand("q", 9.0)
    lone = [Island(0, [p]), Island(1, [q])]  # populations no larger than the elite count
    moves = migrate(lone, 2, elite=1)
    assert moves[0].replaced is None and "elite" in moves[0].note  # p never evicts the fitter q ...
    assert moves[1].replaced == p.key                               # ... but q replaces p
    assert [c.source for c in lone[0].members] == ["# q\n"] and lone[1].members == [q]
    assert migrate([Island(0, [a])], 1) == []  # one island: nowhere to go
