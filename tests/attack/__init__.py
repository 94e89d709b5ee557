"""Attack scripts a reviewer runs by hand against a running FotoPronta stack (``make dev`` or any other):
``python -m tests.attack.accounts|uploads|races|limits --base-url URL``. Each prints one line per attack,
expected against what it got, and exits 1 when any attack got something else. They are not collected by
pytest (no ``test_`` prefix); the stack tests beside them (``tests/stack/test_account_security.py``,
``test_request_limits.py``, ``test_upload_validation.py``, ``test_races.py``) assert the same defences.
"""
