"""Small inputs shared by several test files: a user's rule file and a
progress callback that presses Ctrl-C."""
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


class InterruptAfter:
    """A progress callback that presses Ctrl-C (raises KeyboardInterrupt)
    after ``k`` games."""

    def __init__(self, k):
        self.k, self.seen = k, 0

    def __call__(self, summary):
        self.seen += 1
        if self.seen == self.k:
            raise KeyboardInterrupt
