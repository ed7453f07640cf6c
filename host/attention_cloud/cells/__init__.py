"""Cells: a persisted partition of memory (rules/cells.pl) built from vectors, links and time.

:func:`rebuild` partitions every curated item; :func:`assign` places new ones (curation calls
it); :func:`cells_list`, :func:`cell_show`, :func:`hot_cells` and :func:`cells_stats` read it.
"""
from .api import (CellsReport, assign, cell_show, cells_exist, cells_list, cells_stats,
                  hot_cells, rebuild, update)
from .partition import adjusted_rand

__all__ = ["CellsReport", "adjusted_rand", "assign", "cell_show", "cells_exist", "cells_list",
           "cells_stats", "hot_cells", "rebuild", "update"]
