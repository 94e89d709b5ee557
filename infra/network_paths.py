"""Which u2netp path the second pytest pass of ``tests/retouch`` runs (``make pytest``).

The retouch pipeline's 256 px network passes run either the int8 copy (where the CPU has VNNI and the
file is provisioned) or the fp32 model (:func:`retouch.models.int8_enabled`), and the results differ a
little between the two. ``make pytest`` runs the whole suite on the path this process would take, then
``tests/retouch`` again on the other one, so a change that breaks either path fails ``make test``.

Usage: ``python -m infra.network_paths`` prints two lines: the ``RETOUCH_NETWORK_INT8`` value of the
other path (``0`` or ``1``; empty when this CPU has no int8 dot-product instructions, where ``auto``
never runs int8 and forcing it would test a path no machine of ours takes), then a sentence naming both.
"""

from __future__ import annotations

from retouch.models import NetworkConfig, _cpu_has_int8_dot_product, int8_enabled, network_path


def other_path(network: NetworkConfig | None = None) -> tuple[str, str]:
    """``(RETOUCH_NETWORK_INT8 value of the other path or "", a sentence for the log)``.

    Raises:
        FileNotFoundError: the process asks for int8 (``RETOUCH_NETWORK_INT8=1``) and it is not provisioned.
    """
    network = network or NetworkConfig()
    first = network_path(network)
    if int8_enabled(network):
        return "0", f"retouch tests: first pass {first}; second pass fp32 (RETOUCH_NETWORK_INT8=0)"
    if _cpu_has_int8_dot_product():
        return "1", f"retouch tests: first pass {first}; second pass int8 (RETOUCH_NETWORK_INT8=1)"
    return "", f"retouch tests: one pass, {first}: without VNNI the int8 copy never runs on this CPU"


def main() -> int:
    """Print :func:`other_path`'s two values, one a line."""
    value, sentence = other_path()
    print(value)
    print(sentence)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
