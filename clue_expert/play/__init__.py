"""Games of the Clue family driving players: the Speed Clue driver, players, simulate, reproduce, the contest protocol."""
