"""``python -m right_rag_dagster`` runs the CLI."""

import sys

from .cli import console_main

sys.exit(console_main())
