"""Where agents meet memory: ``remember``, the MCP server, Claude Code hooks and their install.

- :mod:`.remember`: one memory added by hand, a journal item with its own verbatim record.
- :mod:`.ambient`: whether a frame is worth injecting before a prompt at all.
- :mod:`.hooks`: ``atc hook user-prompt|session-end|stop`` (Claude Code hook commands).
- :mod:`.missed_captures`: marks of the hooks' captures that failed, said until one completes.
- :mod:`.install`: ``atc install|uninstall claude-code`` (settings.json, merged and reversible).
- :mod:`.mcp_server`: ``atc mcp``, the official MCP SDK over stdio or loopback HTTP.
- :mod:`.recall_server`: the warm per-home process that answers the prompt hook.
- :mod:`.memory_host`: one Memory for a long-running process, fresh and not blocking writers.
- :mod:`.cli`: the commands, mounted on ``atc`` by :mod:`attention_cloud.cli`.
"""
