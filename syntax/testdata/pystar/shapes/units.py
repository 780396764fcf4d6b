"""Unit conversions."""

SCALE = 100


def scale(x):
    return x * SCALE


def area(shape):
    """area is the surface of a shape in square centimetres."""
    return _rounded(scale(scale(shape.r**2 * 3.14159)))


def _rounded(x):
    return round(x, 2)
