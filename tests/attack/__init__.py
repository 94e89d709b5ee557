"""Attack scripts a reviewer runs against a running FotoPronta stack (issue 11)."""
