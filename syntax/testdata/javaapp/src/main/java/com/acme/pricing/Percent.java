package com.acme.pricing;

/** Percent takes a percentage off. */
public class Percent implements Rule {
    private final int percent;

    public Percent(int percent) {
        this.percent = percent;
    }

    @Override
    public int apply(int cents) {
        return Math.round(cents * (100 - percent) / 100f);
    }

    /** of builds a rule. */
    public static Percent of(int percent) {
        return new Percent(percent);
    }
}
