/**
 * A value the user typed that the domain cannot accept. The message is the reason alone
 * ("at most 2 decimals"); the command layer prefixes the flag it came from. `hint`, when given, is
 * the way forward printed on its own `hint:` line (the forms that are accepted).
 */
export class InvalidValue extends Error {
  readonly hint: string | undefined;

  constructor(reason: string, hint?: string) {
    super(reason);
    this.name = 'InvalidValue';
    this.hint = hint;
  }
}
