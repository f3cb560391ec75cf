"""Command line: ``python3 -m wislice_ap_agent --config FILE [--check-config] [--log-level LEVEL]``."""

from __future__ import annotations

import argparse
import logging
import signal
import sys

from . import config


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="wislice-ap-agent", description="WiSlice WiFi agent next to hostapd")
    parser.add_argument("--config", required=True, help="agent config file (JSON, or INI with [agent] and [radio X])")
    parser.add_argument("--check-config", action="store_true", help="validate the config file and exit")
    parser.add_argument("--log-level", choices=("DEBUG", "INFO", "WARNING", "ERROR"), help="overrides the config")
    args = parser.parse_args(argv)
    try:
        cfg = config.load(args.config)
    except config.ConfigError as e:
        print(f"wislice-ap-agent: bad config: {e}", file=sys.stderr)
        return 2
    if args.check_config:
        controllers = ",".join(f"[{h}]:{p}" if ":" in h else f"{h}:{p}" for h, p in cfg.controllers)
        print(f"config OK: agent {cfg.agent_id}, controller {controllers}, "
              f"{len(cfg.radios)} radio(s)")
        return 0
    logging.basicConfig(level=args.log_level or cfg.log_level, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    from .agent import Agent  # after logging is set up: startup talks to hostapd
    from .hostapd_ctrl import CtrlError
    from .shaping import ShapingError

    try:
        agent = Agent(cfg)
    except (CtrlError, ShapingError, OSError) as e:
        print(f"wislice-ap-agent: cannot start: {e}", file=sys.stderr)
        return 1

    def on_signal(signum: int, frame: object) -> None:
        agent.stop()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        agent.run()
    finally:
        agent.close()
    if agent.restart_requested:
        from .agent import RESTART_EXIT

        print("wislice-ap-agent: restarting on the upgraded firmware", file=sys.stderr)
        return RESTART_EXIT
    return 0


if __name__ == "__main__":
    sys.exit(main())
