"""``python -m api``: serve the API (:func:`api.server.main`)."""

from api.server import main

if __name__ == "__main__":
    main()
