"""REST abuse against a real orchestrator process (issue #13), the short run of bench/rest_abuse.py (same code:
tests/rest_abuse.py): schemathesis over openapi.json as the operator, as tenant 1 (with a live slice) and without a
token (2 generated requests per operation and caller), then the hand-written oversize, unicode and injection
inputs into every string that reaches a config file, a shell or a controller URL. No 5xx, every refusal
problem+json, responses as documented, accepted inputs served back byte-exact, nothing unescaped at the
controllers."""

from __future__ import annotations

import pytest
import rest_abuse
from fake_onos import ServedOnos

pytestmark = pytest.mark.integration

# A few payloads of each kind: the bench sends them all.
SHORT = {k: rest_abuse.PAYLOADS[k] for k in ("lone surrogate", "RLO U+202E", "NUL", "4-byte emoji", "$(reboot)",
                                             "hostapd key", "dot-dot", "URL specials", "dot segment")}


@pytest.fixture
def target(processes, tmp_path):
    onos = ServedOnos()
    try:
        operator = rest_abuse.new_operator_token()
        port = rest_abuse.free_port()
        proc = processes.start(rest_abuse.orchestrator_command(port), log_name="orchestrator",
                               env=rest_abuse.orchestrator_env(tmp_path, onos.url, operator))
        t = rest_abuse.Target(f"http://127.0.0.1:{port}", operator, onos.onos)
        rest_abuse.wait_ready(t.url, lambda: proc.poll() is None)
        rest_abuse.provision(t)
        yield t
        assert proc.poll() is None, "the orchestrator died during the run"
    finally:
        onos.stop()


def test_rest_abuse_short_run(target):
    tally = rest_abuse.Tally()
    rest_abuse.fuzz(target, 2, tally)
    fuzzed = tally.inputs_tried
    rest_abuse.abuse(target, tally, SHORT)
    print(f"rest abuse: {fuzzed} generated + {tally.inputs_tried - fuzzed} hand-written inputs, "
          f"status codes {dict(sorted(tally.statuses.items()))}")
    assert fuzzed >= 200, f"only {fuzzed} generated requests"
    assert tally.inputs_tried - fuzzed >= 300
    assert tally.server_errors == 0
    assert tally.failures == []
    # The run reached what it is about: refusals, successes, and accepted values at the controllers.
    assert tally.statuses[401] > 0 and tally.statuses[422] > 0 and tally.statuses[413] > 0
    # Every legal payload went in through each way into a slice: create, added vAP/vNF, transcoder policy.
    for way in ("into SSID", "into added vAP SSID", "into added vNF param value", "into transcoder param value"):
        assert f"$(reboot) {way}" in tally.accepted, (way, tally.accepted)
    assert tally.served_back >= 10 and tally.reached_controllers >= 10
    assert len(target.onos.received) > 50
    assert rest_abuse.tokens_alive(target)
