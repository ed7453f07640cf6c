"""Driving the product's attention controller through its real API (placeholder, see below)."""
from __future__ import annotations


def controller_status() -> tuple[bool, str]:
    try:
        from attention_cloud.attention import Controller  # noqa: F401
    except ImportError as exc:
        return False, f"attention_cloud.attention.Controller cannot be imported ({exc})"
    return True, "attention_cloud.attention.Controller"
