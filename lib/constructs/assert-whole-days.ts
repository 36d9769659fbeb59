/**
 * Throws at construction time (i.e. during `cdk synth`), naming the offending prop,
 * so a bad value never reaches CloudFormation where the error would be far less clear.
 */
export function assertWholeDays(field: string, value: number, max: number): void {
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw new Error(`${field} must be a whole number of days between 1 and ${max}, got ${value}`);
  }
}
