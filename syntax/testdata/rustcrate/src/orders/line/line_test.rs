use super::Line;

#[test]
fn subtotal_multiplies() {
    let l = Line::new("pen", 150, 3);
    assert_eq!(l.subtotal(), 450);
}
