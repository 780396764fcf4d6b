"""Shapes and the units they are measured in."""
