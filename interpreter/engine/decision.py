"""What a game exposes when it stops: who decides, and among which options."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Decision:
    """What the game is waiting for: who decides, and among which options."""

    players: tuple[int, ...]
    simultaneous: bool
    options: dict[int, tuple[str, ...]]
    prompt: str
    # per waiting player: the choice's own `prompt` as that player reads it (empty when the ruleset gives none)
    prompts: dict[int, str] = field(default_factory=dict)

    def option_count(self, player: int) -> int:
        return len(self.options[player])

    def prompt_for(self, player: int) -> str:
        """What ``player`` is asked: the ruleset's `prompt` for this choice, else the step and `choose`."""
        return self.prompts.get(player) or self.prompt
