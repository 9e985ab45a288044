import { readFileSync } from 'node:fs';
import { renderEventsDoc, renderSchemaFiles } from './events-doc.js';

// The published documentation and schema files are generated; these tests fail when they drift from the code.
describe('generated integration-event documentation (run `npm run events:docs` after changing a contract)', () => {
  it('docs/events.md is the rendering of the contract registry', () => {
    expect(readFileSync(new URL('../../../docs/events.md', import.meta.url), 'utf8')).toBe(renderEventsDoc());
  });

  it.each(Object.entries(renderSchemaFiles()))('schemas/%s is up to date', (name, content) => {
    expect(readFileSync(new URL(`../schemas/${name}`, import.meta.url), 'utf8')).toBe(content);
  });
});
