/** The JSON Schema of pulse.config.json, generated from the zod schema so the two never disagree. */
import * as z from 'zod';
import { PulseConfig } from './schema.ts';

export function configJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(PulseConfig, { io: 'input', unrepresentable: 'any' }),
    title: 'Pulse configuration (pulse.config.json)',
  };
}
