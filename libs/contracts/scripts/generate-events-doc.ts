import { mkdirSync, writeFileSync } from 'node:fs';
import { renderEventsDoc, renderSchemaFiles } from '../src/events-doc.js';

const doc = new URL('../../../docs/events.md', import.meta.url);
writeFileSync(doc, renderEventsDoc());
const schemas = new URL('../schemas/', import.meta.url);
mkdirSync(schemas, { recursive: true });
for (const [name, content] of Object.entries(renderSchemaFiles())) writeFileSync(new URL(name, schemas), content);
process.stdout.write(`wrote ${doc.pathname} and ${Object.keys(renderSchemaFiles()).length} schema files\n`);
