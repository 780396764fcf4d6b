package com.acme.pricing;

/** A Rule turns a price in cents into a final price. */
public interface Rule {
    int apply(int cents);
}
