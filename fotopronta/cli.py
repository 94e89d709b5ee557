"""The ``fotopronta`` command line.

- ``fotopronta create-user --email E --password P --role client|graphic|admin [--first-name N]``:
  a confirmed, active account (the first admin has to come from somewhere).
- ``fotopronta retouch IN... -o OUT/ [--preset NAME] [--matte] [--cutout]``: the retouch pipeline on
  files, without any server.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from fotopronta.domain import UserRole


def _create_user(args: argparse.Namespace) -> int:
    from fotopronta.accounts import EmailAlreadyRegisteredError, create_user
    from fotopronta.db import session_scope

    if len(args.password) < 6:
        print("La password deve essere lunga almeno 6 caratteri.", file=sys.stderr)
        return 2
    try:
        with session_scope() as session:
            profile = create_user(
                session,
                email=args.email,
                password=args.password,
                first_name=args.first_name,
                last_name=args.last_name,
                role=UserRole(args.role),
                confirmed=True,
            )
            print(
                f"creato {profile.email} ({profile.user_role}), id {profile.id}, "
                f"crediti {profile.credits_remaining}"
            )
    except EmailAlreadyRegisteredError:
        print("Un utente con questa email è già registrato", file=sys.stderr)
        return 1
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with the ``create-user`` and ``retouch`` sub-commands."""
    from retouch import cli as retouch_cli

    parser = argparse.ArgumentParser(prog="fotopronta", description="FotoPronta: ritocco foto per e-commerce")
    sub = parser.add_subparsers(dest="command", required=True)
    cu = sub.add_parser("create-user", help="crea un utente confermato e attivo")
    cu.add_argument("--email", required=True)
    cu.add_argument("--password", required=True)
    cu.add_argument("--role", choices=[r.value for r in UserRole], default=UserRole.client.value)
    cu.add_argument("--first-name", default=None)
    cu.add_argument("--last-name", default=None)
    cu.set_defaults(func=_create_user)
    rt = sub.add_parser("retouch", help="ritocca file locali senza server")
    retouch_cli.add_arguments(rt)
    rt.set_defaults(func=retouch_cli.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``fotopronta`` script; returns the exit code."""
    from fotopronta.settings import get_settings
    from retouch.runtime import RUNTIME

    args = build_parser().parse_args(argv)
    if getattr(args, "models_dir", "") is None:  # retouch: the configured model directory (U2NET_HOME wins)
        args.models_dir = Path(RUNTIME.models_dir) if RUNTIME.models_dir else get_settings().u2net_home
    return int(args.func(args))


if __name__ == "__main__":
    raise SystemExit(main())
