"""A tiny shop run under ddtrace-run to capture what ddtrace sends (see README.md here).

It serves three routes from a Flask app backed by sqlite3 and calls each of them with requests,
so every request makes a client span, a Flask server span and a sqlite span, with log lines at
every level inside those spans. Logs go to two files: the plain-text layout ddtrace documents for
log injection, and JSON (python-json-logger) with the same injected attributes.
"""
import logging
import os
import sqlite3
import sys
import threading

import requests
from flask import Flask, jsonify, request
from pythonjsonlogger.json import JsonFormatter
from werkzeug.serving import make_server

# ddtrace's documented injection layout (ddtrace/contrib/internal/logging/__init__.py).
TEXT_FORMAT = (
    "%(asctime)s %(levelname)s [%(name)s] [%(filename)s:%(lineno)d] "
    "[dd.service=%(dd.service)s dd.env=%(dd.env)s dd.version=%(dd.version)s "
    "dd.trace_id=%(dd.trace_id)s dd.span_id=%(dd.span_id)s] - %(message)s"
)
JSON_FIELDS = "%(asctime)s %(levelname)s %(name)s %(message)s %(dd.service)s %(dd.env)s %(dd.version)s %(dd.trace_id)s %(dd.span_id)s"


def configure_logging(out_dir):
    text = logging.FileHandler(os.path.join(out_dir, "app.log"), mode="w")
    text.setFormatter(logging.Formatter(TEXT_FORMAT))
    as_json = logging.FileHandler(os.path.join(out_dir, "app.json.log"), mode="w")
    as_json.setFormatter(JsonFormatter(JSON_FIELDS))
    shop = logging.getLogger("shop")
    shop.setLevel(logging.DEBUG)
    shop.addHandler(text)
    shop.addHandler(as_json)
    shop.propagate = False
    return shop


log = configure_logging(sys.argv[1] if len(sys.argv) > 1 else ".")
app = Flask("py-shop")
db = sqlite3.connect(":memory:", check_same_thread=False)
db_lock = threading.Lock()


def query(sql, params=()):
    with db_lock:
        cursor = db.execute(sql, params)
        db.commit()
        return cursor


@app.get("/orders/<int:order_id>")
def get_order(order_id):
    log.debug("looking up order %d", order_id)
    row = query("SELECT id, item, quantity FROM orders WHERE id = ?", (order_id,)).fetchone()
    log.info("order %d found: %s", order_id, row[1])
    return jsonify(id=row[0], item=row[1], quantity=row[2])


@app.post("/orders")
def create_order():
    body = request.get_json()
    if body["quantity"] > 5:
        log.warning("large order: %d x %s", body["quantity"], body["item"])
    cursor = query("INSERT INTO orders (item, quantity) VALUES (?, ?)", (body["item"], body["quantity"]))
    log.info("order %d created", cursor.lastrowid)
    return jsonify(id=cursor.lastrowid), 201


@app.post("/cart/checkout")
def checkout():
    query("UPDATE orders SET quantity = quantity - 1 WHERE id = ?", (1,))
    try:
        raise RuntimeError("payment service unavailable")
    except RuntimeError:
        log.error("checkout failed for cart %s", request.args.get("cart", "?"))
        raise


def main():
    query("CREATE TABLE orders (id INTEGER PRIMARY KEY, item TEXT NOT NULL, quantity INTEGER NOT NULL)")
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}"
    created = requests.post(f"{base}/orders", json={"item": "widget", "quantity": 7})
    order_id = created.json()["id"]
    fetched = requests.get(f"{base}/orders/{order_id}")
    failed = requests.post(f"{base}/cart/checkout?cart=c-42")
    print(f"POST /orders {created.status_code}, GET /orders/{order_id} {fetched.status_code}, POST /cart/checkout {failed.status_code}")
    server.shutdown()


if __name__ == "__main__":
    main()
