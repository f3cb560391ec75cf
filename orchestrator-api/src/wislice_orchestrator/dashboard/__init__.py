"""Operator dashboard: one HTML page and plain JavaScript over the same REST API (no build step)."""

from flask import Blueprint, render_template

blp = Blueprint("dashboard", __name__, url_prefix="/", template_folder="templates", static_folder="static",
                static_url_path="/static")


@blp.get("/")
def index() -> str:
    return render_template("dashboard.html")
