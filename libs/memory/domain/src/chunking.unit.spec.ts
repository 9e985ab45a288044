import { chunkSource, htmlToMarkdown } from './index.js';

const markdown = `Intro line before any heading.

# Returns
General policy.

## Refund window
Refunds within 30 days.

\`\`\`sh
# not a heading
\`\`\`

## Exchanges
Exchanges are free.

# Shipping
Ships in 2 days.
`;

describe('chunking by heading', () => {
  it('cuts markdown at headings and keeps the heading path', () => {
    const chunks = chunkSource({ sourceId: 's1', title: 'Help', format: 'markdown', content: markdown });
    expect(chunks.map((c) => [c.heading, c.ordinal])).toEqual([
      ['Help', 0],
      ['Returns', 1],
      ['Returns › Refund window', 2],
      ['Returns › Exchanges', 3],
      ['Shipping', 4],
    ]);
    expect(chunks[2]?.text).toContain('# not a heading');
    expect(chunks.every((c) => c.sourceId === 's1' && c.chunkId.startsWith('s1:'))).toBe(true);
    expect(new Set(chunks.map((c) => c.chunkId)).size).toBe(chunks.length);
  });

  it('gives stable ids: an edited section keeps its id, others are untouched', () => {
    const before = chunkSource({ sourceId: 's1', title: 'Help', format: 'markdown', content: markdown });
    const after = chunkSource({ sourceId: 's1', title: 'Help', format: 'markdown', content: markdown.replace('30 days', '60 days') });
    expect(after.map((c) => c.chunkId)).toEqual(before.map((c) => c.chunkId));
    expect(after[2]?.text).toContain('60 days');
    const other = chunkSource({ sourceId: 's2', title: 'Help', format: 'markdown', content: markdown });
    expect(other[0]?.chunkId).not.toEqual(before[0]?.chunkId);
  });

  it('cuts an overlong section at paragraph boundaries, within the limit', () => {
    const body = Array.from({ length: 10 }, (_, i) => `Paragraph ${i} ${'word '.repeat(30)}`).join('\n\n');
    const chunks = chunkSource({ sourceId: 's1', title: 'T', format: 'markdown', content: `# Long\n${body}` }, { maxChars: 400 });
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.every((c) => c.text.length <= 400 && c.heading === 'Long')).toBe(true);
    expect(
      chunks
        .map((c) => c.text)
        .join('\n\n')
        .replace(/\s+/g, ' '),
    ).toEqual(body.replace(/\s+/g, ' ').trim());
  });

  it('reads HTML headings, drops scripts and decodes entities', () => {
    const html =
      '<html><head><title>x</title></head><body><script>var a = "<h1>no</h1>";</script><h1>FAQ</h1><p>Tom &amp; Jerry&#39;s <b>shop</b></p><h2 class="x">Hours</h2><p>9&ndash;5</p></body></html>';
    expect(htmlToMarkdown(html)).toContain('# FAQ');
    const chunks = chunkSource({ sourceId: 'h', title: 'Site', format: 'html', content: html });
    expect(chunks.map((c) => [c.heading, c.text])).toEqual([
      ['FAQ', "Tom & Jerry's shop"],
      ['FAQ › Hours', '9\u20135'],
    ]);
  });

  it('keeps plain text under the title', () => {
    expect(chunkSource({ sourceId: 't', title: 'Notes', format: 'text', content: 'Just text.' })).toMatchObject([
      { heading: 'Notes', text: 'Just text.' },
    ]);
  });

  it('refuses empty content and unknown formats with a code', () => {
    expect(() => chunkSource({ sourceId: 't', title: 'N', format: 'markdown', content: '# Only a heading\n' })).toThrow(
      expect.objectContaining({ code: 'MEMORY.INVALID_SOURCE', message: 'content must contain some text' }),
    );
    expect(() => chunkSource({ sourceId: 't', title: 'N', format: 'pdf' as never, content: 'x' })).toThrow(
      /format must be one of markdown, html, text/,
    );
  });
});
