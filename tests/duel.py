"""A tiny 2-3 player game used by the engine tests.

Each round every player secretly plays a card; the highest power takes a gem
from the bank.  Card names start with SENTINEL so leak tests can look for them.
"""

RULES = """
game "Duel" {
  players 2..3
  step_limit 5000
}
enum Suit { sun, moon }
card Token {
  power: int
  suit: Suit = sun
  on_play: effect(p: player) = none
}
cards "cards.yaml"
zone deck: deck hidden of Token
zone hand: per player set owner of Token
zone table: per player row public of Token
zone gone: pile public final of Token
counter per player wins 0..3 = 0
flag per player played reset each round
pool gems {
  bank: 10
  per player purse
}
setup {
  shuffle deck
  for p in players { move top(deck, 3) to p.hand }
  first = random(players)
}
round {
  step play "Play" {
    simultaneously p in players_from(first) choose c from p.hand {
      move c to p.table
      p.played = true
      log "{} plays {}", p, c
      do c.on_play(p)
    }
  }
  step judge "Judge" {
    let best = max(sum(c.power for c in p.table) for p in players)
    for p in players {
      if sum(c.power for c in p.table) == best {
        transfer 1 from bank to p.purse as got
        p.wins += 5
      }
      move p.table to gone
    }
    first = next_player(first)
    if all(size(p.hand) == 0 for p in players) { end game }
  }
}
score(p) = p.purse
tiebreak(p) = p.wins
invariant "gems conserved": bank + sum(p.purse for p in players) == 10
"""

CARDS = """
kind: Token
start: deck
cards:
""" + "".join(
    f"  - {{name: SENTINEL-{i:02d}, power: {i % 5}, suit: {'sun' if i % 2 else 'moon'}}}\n" for i in range(12)
)
