/** Writes schemas/pulse.config.schema.json from the zod schema (run by `npm run build:schema`). */
import { writeFileSync } from 'node:fs';
import { configJsonSchema } from '../src/config/json-schema.ts';

const out = new URL('../schemas/pulse.config.schema.json', import.meta.url);
writeFileSync(out, `${JSON.stringify(configJsonSchema(), null, 2)}\n`);
process.stdout.write(`wrote ${out.pathname}\n`);
