import { writeFileSync } from 'node:fs';
import { renderConfigurationDoc } from '../src/config-doc.js';

const doc = new URL('../../../../docs/configuration.md', import.meta.url);
writeFileSync(doc, renderConfigurationDoc());
process.stdout.write(`wrote ${doc.pathname}\n`);
