"""The PMS side of the emulator (document 02): its state, availability derivation, seeds, handlers."""

from roomsync.emulator.pms.seed import generate_pms, seed_demo_pms
from roomsync.emulator.pms.state import PmsState

__all__ = ["PmsState", "generate_pms", "seed_demo_pms"]
