"""Array type names used across the vision package.

OpenCV's own stubs type what it returns as ``MatLike`` (any ndarray dtype), so these aliases
accept any dtype; the docstrings say what each holds.
"""

from __future__ import annotations

from typing import Any

import numpy.typing as npt

Image = npt.NDArray[Any]
"""A picture: HxWx3 uint8 BGR (HxWx4 BGRA for card art, HxW uint8 for masks)."""
Quad = npt.NDArray[Any]
"""Four corners, float32, shape (4, 2), in frame pixels."""
Vector = npt.NDArray[Any]
"""Float32 feature vectors or matrices of them."""
Contour = npt.NDArray[Any]
"""An OpenCV contour: int32 points, shape (N, 1, 2)."""
