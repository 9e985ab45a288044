import { readFileSync } from 'node:fs';
import { OfflineVectorizer } from '@tenet/llm';
import { KnowledgeService } from './knowledge.service.js';
import { pdfBytes, pdfToMarkdown } from './pdf-source.js';
import { SqliteKnowledgeIndex } from './sqlite-knowledge-index.js';
import { handbookPdf } from './testing/pdf-fixture.js';

const base64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');
// Made from handbookPdf() with `qpdf --encrypt secret owner 256` (pdf-lib cannot encrypt).
const encrypted = readFileSync(new URL('./testing/fixtures/encrypted.pdf', import.meta.url));

describe('PDF knowledge sources', () => {
  it('reads headings from font sizes: the largest size is level 1, the next level 2, body text in paragraphs', async () => {
    expect(await pdfToMarkdown(await handbookPdf())).toBe(
      [
        '# Returns',
        '## Refund window',
        'You can get a refund within 30 days of delivery if the item is unused and in its original box.',
        '## Exchanges',
        'Exchanges for another size are free of charge.',
        '# Shipping',
        '## Delivery times',
        'Standard delivery takes 3 to 5 working days; express delivery arrives the next day.',
      ].join('\n\n'),
    );
  });

  it('cuts a PDF without headings by page', async () => {
    const markdown = await pdfToMarkdown(await handbookPdf({ headings: false }));
    expect(markdown.split('\n\n').filter((b) => b.startsWith('#'))).toEqual(['# Page 1', '# Page 2']);
    expect(markdown).toContain('Standard delivery takes 3 to 5 working days');
  });

  it('refuses what is not a readable PDF, naming content and the problem', async () => {
    await expect(pdfToMarkdown(new Uint8Array(encrypted))).rejects.toThrow('content is an encrypted (password-protected) PDF');
    expect(() => pdfBytes('not base64!')).toThrow('content must be the PDF file encoded in base64');
    expect(() => pdfBytes(Buffer.from('hello world').toString('base64'))).toThrow('content is not a PDF file');
    await expect(pdfToMarkdown(pdfBytes(Buffer.from('%PDF-1.7\nnothing else').toString('base64')))).rejects.toThrow(
      /^content is not a readable PDF/,
    );
  });

  it('ingests a PDF through the service: chunks by heading, searchable, format pdf, re-ingest of the same file a no-op', async () => {
    const index = new SqliteKnowledgeIndex();
    try {
      const service = new KnowledgeService(index, new OfflineVectorizer());
      const content = base64(await handbookPdf());
      const source = await service.ingest({ sourceId: 'handbook', title: 'Handbook', format: 'pdf', content });
      expect(source).toMatchObject({ format: 'pdf', chunkCount: 3 });
      expect((await index.sourceChunks('handbook')).map((c) => c.heading)).toEqual([
        'Returns › Refund window',
        'Returns › Exchanges',
        'Shipping › Delivery times',
      ]);
      const [hit] = await service.search({ query: 'how long does express delivery take?', maxResults: 1, threshold: 0 });
      expect(hit).toMatchObject({ sourceId: 'handbook', heading: 'Shipping › Delivery times' });
      expect(await service.ingest({ sourceId: 'handbook', title: 'Handbook', format: 'pdf', content })).toEqual(source);
      await expect(
        service.ingest({ sourceId: 'handbook', title: 'Handbook', format: 'pdf', content: base64(encrypted) }),
      ).rejects.toMatchObject({ code: 'MEMORY.INVALID_SOURCE' });
      expect((await service.getSource('handbook'))?.contentHash).toBe(source.contentHash);
    } finally {
      await index.close();
    }
  });
});
