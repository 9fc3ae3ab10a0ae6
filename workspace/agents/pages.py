"""Placeholder; filled below."""

from flask import Blueprint

bp = Blueprint("agents_pages", __name__)
