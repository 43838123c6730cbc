"""Camera over the felt: frame sources, zone calibration, card detection and recognition."""
