"""Plane shapes."""

import math

__all__ = ["Circle", "area", "TAU"]

TAU = 2 * math.pi


class Circle:
    def __init__(self, r):
        self.r = r


def area(shape):
    """area is the surface of a shape."""
    return math.pi * shape.r**2


def perimeter(shape):
    return TAU * shape.r
