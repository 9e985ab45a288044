import { MemoryDomainError } from '@tenet/memory-domain';
import type * as PdfJs from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { TextItem } from 'pdfjs-dist/types/src/display/api.js';

/** The most pages of a PDF that are read; a longer document is refused rather than cut silently. */
export const MAX_PDF_PAGES = 500;
/** A line this much larger than the body text, and short, is a heading. */
const HEADING_RATIO = 1.15;
const MAX_HEADING_CHARS = 120;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

interface Line {
  text: string;
  size: number;
  page: number;
}

const invalidPdf = (why: string): MemoryDomainError => new MemoryDomainError('MEMORY.INVALID_SOURCE', `content ${why}`);

/** A PDF upload's bytes from its base64 text (what `POST /knowledge/sources` carries for `format: "pdf"`). */
export function pdfBytes(base64: string): Uint8Array {
  const compact = base64.replace(/\s+/g, '');
  if (!BASE64.test(compact) || compact.length % 4 === 1) throw invalidPdf('must be the PDF file encoded in base64 for format "pdf"');
  const bytes = Buffer.from(compact, 'base64');
  if (bytes.subarray(0, 5).toString('latin1') !== '%PDF-') throw invalidPdf('is not a PDF file (it does not start with "%PDF-")');
  return new Uint8Array(bytes);
}

/**
 * pdf.js, loaded on the first PDF: imported eagerly it added ~37 MB to the idle memory of every process that loads
 * the memory service (all-in-one, memory store), most of which never parse a PDF.
 */
let loading: Promise<typeof PdfJs> | undefined;
const pdfjs = (): Promise<typeof PdfJs> => (loading ??= import('pdfjs-dist/legacy/build/pdf.mjs'));

async function lines(pdf: PdfJs.PDFDocumentProxy): Promise<Line[]> {
  const out: Line[] = [];
  for (let n = 1; n <= pdf.numPages; n++) {
    const page = await pdf.getPage(n);
    const { items } = await page.getTextContent();
    let text = '';
    let size = 0;
    let y: number | undefined;
    const flush = (): void => {
      if (text.trim() !== '') out.push({ text: text.replace(/\s+/g, ' ').trim(), size: Math.round(size * 10) / 10, page: n });
      text = '';
      size = 0;
    };
    for (const item of items as TextItem[]) {
      if (typeof item.str !== 'string') continue;
      const itemY = item.transform[5] as number;
      // A new line starts where the baseline moves (pdf.js also marks explicit ends of line).
      if (y !== undefined && Math.abs(itemY - y) > 1) flush();
      y = itemY;
      text += item.str;
      if (item.str.trim() !== '') size = Math.max(size, Math.hypot(item.transform[2] as number, item.transform[3] as number));
      if (item.hasEOL) flush();
    }
    flush();
    page.cleanup();
  }
  return out;
}

/**
 * A PDF as the Markdown the chunker reads. Headings come from font sizes: the size that carries the most text
 * is the body; short lines set larger are headings, the largest size level 1 (up to three levels). A PDF with no
 * such lines is cut by page (`# Page n`). Throws `MEMORY.INVALID_SOURCE` naming `content` for bytes that are not
 * a readable PDF, an encrypted one, one past MAX_PDF_PAGES pages, or one without any text (a scan).
 */
export async function pdfToMarkdown(bytes: Uint8Array): Promise<string> {
  let pdf: PdfJs.PDFDocumentProxy;
  try {
    pdf = await (
      await pdfjs()
    ).getDocument({ data: bytes.slice(), isEvalSupported: false, disableFontFace: true, useSystemFonts: false, verbosity: 0 }).promise;
  } catch (error) {
    // pdf.js throws its PasswordException (not exported) for an encrypted file it cannot open without one.
    if (error instanceof Error && error.name === 'PasswordException')
      throw invalidPdf('is an encrypted (password-protected) PDF; upload it without a password');
    throw invalidPdf(`is not a readable PDF (${error instanceof Error ? error.message : String(error)})`);
  }
  try {
    if (pdf.numPages > MAX_PDF_PAGES) throw invalidPdf(`has ${pdf.numPages} pages; at most ${MAX_PDF_PAGES} are accepted`);
    const all = await lines(pdf);
    if (all.length === 0) throw invalidPdf('has no text layer (a scanned PDF needs OCR first)');
    const charsBySize = new Map<number, number>();
    for (const line of all) charsBySize.set(line.size, (charsBySize.get(line.size) ?? 0) + line.text.length);
    const [[body] = [0]] = [...charsBySize.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    const isHeading = (line: Line): boolean => line.size >= body * HEADING_RATIO && line.text.length <= MAX_HEADING_CHARS;
    const headingSizes = [...new Set(all.filter(isHeading).map((l) => l.size))].sort((a, b) => b - a).slice(0, 3);
    const blocks: string[] = [];
    let paragraph: string[] = [];
    const endParagraph = (): void => {
      if (paragraph.length > 0) blocks.push(paragraph.join(' '));
      paragraph = [];
    };
    let page = 0;
    for (const line of all) {
      if (headingSizes.length === 0 && line.page !== page) {
        endParagraph();
        blocks.push(`# Page ${line.page}`);
      } else if (line.page !== page) endParagraph();
      page = line.page;
      const level = isHeading(line) ? headingSizes.indexOf(line.size) : -1;
      if (level >= 0) {
        endParagraph();
        blocks.push(`${'#'.repeat(level + 1)} ${line.text}`);
      } else paragraph.push(line.text);
    }
    endParagraph();
    return blocks.join('\n\n');
  } finally {
    await pdf.destroy();
  }
}
