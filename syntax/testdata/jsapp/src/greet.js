/** greet welcomes a customer by name. */
export default function greet(name) {
  return `Hello, ${name}!`;
}
