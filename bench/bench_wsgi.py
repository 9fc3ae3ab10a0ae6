"""The app as gunicorn serves it for bench/throughput.py, without the rate limits (the
benchmark's eight clients would otherwise measure the limiter)."""

from workspace import create_app

app = create_app({"RATELIMIT_ENABLED": False})
