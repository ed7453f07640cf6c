"""Cells: a persisted partition of memory (rules/cells.pl) built from vectors, links and time.

:func:`rebuild` partitions every curated item; :func:`assign` places new ones (curation calls
it); :func:`cells_list`, :func:`cell_show`, :func:`hot_cells` and :func:`cells_stats` read it.
Each name is imported from its module on first use (PEP 562): counting cells (`atc stats`)
needs neither numpy nor the partitioning code.
"""
from __future__ import annotations

from ..lazy_names import lazy_names

_LAZY = {"CellsReport": ".api", "assign": ".api", "rebuild": ".api", "update": ".api",
         "cell_show": ".listing", "cells_list": ".listing", "hot_cells": ".listing",
         "cells_exist": ".counts", "cells_stats": ".counts", "adjusted_rand": ".partition"}

__getattr__, __dir__ = lazy_names(__name__, _LAZY)

__all__ = ["CellsReport", "adjusted_rand", "assign", "cell_show", "cells_exist", "cells_list",
           "cells_stats", "hot_cells", "rebuild", "update"]
