"""Small inputs shared by several test files (and benchmarks/audit.py): a
user's rule file with its scenarios, a progress callback that presses
Ctrl-C, and a costly strategy rule file."""
from __future__ import annotations

#: A user's deduction rule file of one rule (its ruleset id is ``mine``), as
#: an author would write it for ``--rules FILE``.
MINE = """\
id: mine
title: My extra rules
rules:
  - id: shown-card-is-not-in-envelope
    message: "{player} showed {by} {card} on turn {turn}, so {card} is not in the envelope"
    group: intake
    when: showed
    if: "card is not None"
    then:
      - lacked: [ENVELOPE, card]
"""


#: The scenarios of :data:`MINE` (its ``mine.test.yaml``): one where its rule
#: must fire, then one where it must not.
MINE_TESTS = """\
ruleset: mine
scenarios:
  - name: a card ann sees shown is not in the envelope
    rule: shown-card-is-not-in-envelope
    fires: true
    me: ann
    turns:
      - {by: ann, suggest: [white, rope, study], passed: [], shown_by: bob, card: rope}
    expect: ["envelope lacks rope"]
  - name: a show ann does not see names no card
    rule: shown-card-is-not-in-envelope
    fires: false
    me: ann
    turns:
      - {by: bob, suggest: [white, rope, study], passed: [], shown_by: cat}
    expect: ["envelope lacks rope"]
"""


class InterruptAfter:
    """A progress callback that presses Ctrl-C (raises KeyboardInterrupt)
    after ``k`` games."""

    def __init__(self, k):
        self.k, self.seen = k, 0

    def __call__(self, summary):
        self.seen += 1
        if self.seen == self.k:
            raise KeyboardInterrupt


def costly_strategy() -> dict:
    """A short strategy rule file (as a mapping) whose one rule values all
    216 suggestions of the classic edition twice in one request, with
    Shannon and Hartley information gain: about 120,000,000 units of the
    exact beliefs' work, past the per-request limit ``RUN_WORK`` (issue 25's
    audit, ``benchmarks/audit.py`` case ``costly-library-call``)."""
    return {
        "id": "costly", "title": "costly", "kind": "strategy",
        "rules": [{"id": "costly-rule", "message": "costly", "when": "your-turn",
                   "for": {"s": "category_cards('suspect')", "w": "category_cards('weapon')",
                           "r": "category_cards('room')"},
                   "each": {"g": "information_gain([s, w, r])", "h": "information_gain([s, w, r], 'hartley')"},
                   "then": [{"suggest": {"other": "category_cards(category)"}}]}]}
