import { it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { synthPulse } from './synth-pulse.ts';
it('dump', () => {
  const { template, findings } = synthPulse();
  writeFileSync('/tmp/template.json', JSON.stringify(template.toJSON(), null, 1));
  console.log(findings);
});
