/** cdk-nag acknowledgements whose ids follow the template, so they hold for any config and construct tree. */
import { Stack, Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

export function acknowledge(scope: IConstruct, findings: [id: string, reason: string][]): void {
  for (const [id, reason] of findings) Validations.of(scope).acknowledge({ id, reason });
}

/**
 * A resource as cdk-nag names it in a finding's id: the template's value, references as `<Ref>` and
 * `<LogicalId.Attribute>` (e.g. `<ArchiveBucket49F1AC64.Arn>/acme/digests/*`).
 */
export function nagText(scope: IConstruct, value: string): string {
  const resolved = Stack.of(scope).resolve(value) as string | { 'Fn::Join': [string, unknown[]] };
  if (typeof resolved === 'string') return resolved;
  const [separator, parts] = resolved['Fn::Join'];
  const text = (part: unknown): string => {
    if (typeof part === 'string') return part;
    const ref = part as { Ref?: string; 'Fn::GetAtt'?: [string, string] };
    return ref.Ref !== undefined ? `<${ref.Ref}>` : `<${ref['Fn::GetAtt']!.join('.')}>`;
  };
  return parts.map(text).join(separator);
}
