"""WiSlice agent protocol for the agents (stdlib only: runs on OpenWrt's python3).

- ``validate``: messages checked against spec/agent/schema/message.schema.json (``schema``: the stdlib validator);
- ``protocol``: framing (JSON lines of at most 1 MiB) and the messages, HMAC of the hello;
- ``methods``: the method table, request -> handler -> reply;
- ``client``: the agent's reconnecting controller connection (``AgentClient``);
- ``errors``: ``AgentError`` (an error reply), ``ProtocolError`` (closes the connection);
- ``switch_mgmt``: the pof-switch's management socket (spec/switch-mgmt);
- ``prometheus``: Prometheus text format 0.0.4 and the agents' /metrics HTTP server.

Adding an agent call: the method in the schema and a vector in spec/agent/vectors, then a handler in the agent's
method table (and the controller's side).
"""

__version__ = "0.1.0"
