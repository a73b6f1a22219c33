"""The language client of the tests and the benchmark: tools/lsp_client.py (framing and
JSON, standard library only)."""
import os
import sys

from .paths import ROOT

sys.path.insert(0, os.path.join(ROOT, 'tools'))
from lsp_client import Client, ProtocolError, file_uri, frame  # noqa: E402,F401
