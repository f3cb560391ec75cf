"""The management-socket vectors are well-formed, agree with the README's command table, and each parsed value says
what its reply says."""

import json
import re
from pathlib import Path

import pytest

MGMT = Path(__file__).resolve().parents[1] / "switch-mgmt"
VECTORS = sorted((MGMT / "vectors").glob("*.json"))
README = (MGMT / "README.md").read_text()
# the first column of the Commands table: `port-add NAME [ARGS]` -> port-add
COMMANDS = re.findall(r"^\| `([a-z-]+)[^`]*` \| `OK", README, re.M)
# the first column of the Errors table: `no port <NAME>` -> no port .+
ERRORS = README.split("## Errors", 1)[1].split("##", 1)[0]
REASONS = [re.compile(".+".join(re.escape(part) for part in re.split(r"<[^>]+>", reason)))
           for row in re.findall(r"^\| ([^|]+) \|", ERRORS, re.M) for reason in re.findall(r"`([^`]+)`", row)]
MAX_LINE = 510


def steps():
    for path in VECTORS:
        for i, step in enumerate(json.loads(path.read_text())["steps"]):
            yield pytest.param(step, id=f"{path.stem}-{i}")


def test_there_are_vectors_and_commands():
    assert len(VECTORS) >= 5 and len(REASONS) >= 10
    assert COMMANDS == ["port-add", "port-del", "port-rate", "port-stats", "port-latency", "latency", "on-connect",
                        "ports", "stats", "probe-start", "probe-stats", "probe-stop"]


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: p.stem)
def test_vector_shape(path):
    vector = json.loads(path.read_text())
    assert set(vector) == {"about", "steps"} and vector["about"].strip()
    assert vector["steps"], "a vector has steps"
    for step in vector["steps"]:
        assert set(step) <= {"send", "reply", "parsed"} and {"send", "reply"} <= set(step), step
        assert isinstance(step["send"], str) and isinstance(step["reply"], str)
        assert "\n" not in step["send"] + step["reply"] and "\r" not in step["send"] + step["reply"]
        assert len(step["send"].encode()) <= MAX_LINE


def test_every_command_has_an_ok_and_an_error_vector():
    seen: dict[str, set[str]] = {}
    for path in VECTORS:
        for step in json.loads(path.read_text())["steps"]:
            words = step["send"].split()
            if words:
                seen.setdefault(words[0], set()).add(step["reply"].split()[0])
    for command in COMMANDS:
        assert "OK" in seen.get(command, set()), f"no OK vector for {command}"
        if command not in ("ports", "stats"):  # they take no arguments and cannot fail
            assert "ERROR" in seen.get(command, set()), f"no ERROR vector for {command}"


@pytest.mark.parametrize("step", steps())
def test_reply_and_parsed_agree(step):
    reply, command = step["reply"], (step["send"].split() or [""])[0]
    assert re.fullmatch(r"OK( .+)?|ERROR .+", reply), reply
    if reply.startswith("ERROR"):
        assert "parsed" not in step
        assert any(r.fullmatch(reply[6:]) for r in REASONS), f"{reply!r}: not a reason in the README's Errors table"
        return
    if command == "on-connect" and reply != "OK":
        assert reply[3:] in ("keep", "reset") and step["parsed"] == reply[3:]
        return
    if command == "port-latency":  # per port <id>:<name> and 8 counters (latency class, then the rest)
        items = [item.split(":") for item in reply[3:].split()]
        assert all(len(f) == 10 and 1 <= int(f[0]) <= 254 and all(x.isdigit() for x in f[2:]) for f in items), reply
        assert "parsed" not in step
        return
    if command not in ("port-add", "ports", "port-stats", "stats", "probe-stats"):
        assert reply == "OK" and "parsed" not in step
        return
    parsed, text = step["parsed"], reply[3:]
    if command == "port-add":
        assert parsed == int(text) and 1 <= parsed <= 254
    elif command == "ports":
        items = [item.split(":") for item in text.split()]
        assert [(p["id"], p["name"]) for p in parsed] == [(int(f[0]), f[1]) for f in items]
        assert [p["enabled"] for p in parsed] == [f[2] == "1" for f in items]
        keys = ("rx_packets", "tx_packets", "rx_bytes", "tx_bytes")
        assert [[p[k] for k in keys] for p in parsed] == [[int(x) for x in f[3:]] for f in items]
    else:
        assert parsed == {k: int(v) for k, v in (item.split("=") for item in text.split())}
