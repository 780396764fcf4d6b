package com.acme.shop;

import java.util.ArrayList;
import java.util.List;

import com.acme.pricing.Percent;
import com.acme.pricing.Rule;

/** An Order collects lines and prices them. */
public class Order {
    /** Line is one line of an order. */
    public record Line(String sku, int cents, int qty) {}

    private final List<Line> lines = new ArrayList<>();
    private final Rule rule;

    public Order(Rule rule) {
        this.rule = rule;
    }

    public Order add(Line line) {
        lines.add(line);
        return this;
    }

    int linePrice(Line line) {
        return rule.apply(line.cents() * line.qty());
    }

    public int total() {
        int sum = 0;
        for (Line line : lines) {
            sum += linePrice(line);
        }
        return sum;
    }

    static Order discounted(int percent) {
        return new Order(Percent.of(percent));
    }
}
