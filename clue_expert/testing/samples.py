"""Small inputs shared by several test files: a user's rule file with its
scenarios, and a progress callback that presses Ctrl-C."""
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
