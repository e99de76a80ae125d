/**
 * A value the user typed that the domain cannot accept. The message is the reason alone
 * ("at most 2 decimals"); the command layer prefixes the flag it came from.
 */
export class InvalidValue extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'InvalidValue';
  }
}
