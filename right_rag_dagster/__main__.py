"""``python -m right_rag_dagster`` runs the CLI."""

import sys

from .cli import main

sys.exit(main())
