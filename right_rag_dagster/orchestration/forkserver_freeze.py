"""Imported last by the run launcher's forkserver (``run_launcher.PRELOAD``): moves every object the preloaded
modules made to the collector's permanent generation, so the runs forked from it never traverse them (Dagster's
import makes about a million) and their pages stay shared."""

import gc

gc.freeze()
