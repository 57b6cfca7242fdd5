"""``python -m roomsync.emulator [--host H] [--port P] [--seed N] [--scenario demo|generated]``."""

from __future__ import annotations

import argparse

from roomsync.emulator.scenario import DEFAULT_SEED, SCENARIOS
from roomsync.emulator.server import run_emulator


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m roomsync.emulator", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--scenario", choices=SCENARIOS, default="demo")
    parser.add_argument("--channel-name", default="RentalChannel")
    parser.add_argument("--domains", type=int, default=0, help="serve this many properties at once")
    args = parser.parse_args(argv)
    run_emulator(args.host, args.port, args.seed, args.scenario, args.channel_name, args.domains)


if __name__ == "__main__":
    main()
