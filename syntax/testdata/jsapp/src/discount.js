// A tenth off, rounded to the cent.
const discount = (cents) => Math.round(cents * 0.9);

export default discount;
