"""A report on a circle, from names the star imports bring in."""

from shapes.geometry import *
from .units import *


def report(r):
    c = Circle(r)
    return area(c), scale(r), round(TAU, 3)


if __name__ == "__main__":
    print(report(2))
