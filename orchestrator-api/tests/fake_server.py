"""The orchestrator over the fake controllers, served on loopback (development and the browser tests):

    python tests/fake_server.py --port 8080     # WISLICE_* settings as for `wislice serve`

The fake infrastructure (2 APs, 2 MEC nodes, a star topology) moves traffic of its own so the dashboard's charts
move. Never the testbed: that runs `wislice serve` on the real ONOS controllers."""

from __future__ import annotations

import argparse

from fake_controllers import FakeControllers
from orch_helpers import seed_topology
from waitress import serve

from wislice_orchestrator.app import create_app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    args = parser.parse_args()
    fake = FakeControllers(aps=2, mec_nodes=2, simulate_traffic=True)
    app = create_app(controllers=fake)
    seed_topology(app, fake)
    serve(app, host=args.host, port=args.port, threads=8)


if __name__ == "__main__":
    main()
