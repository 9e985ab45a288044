import { PDFDocument, StandardFonts } from 'pdf-lib';

/**
 * A small, real PDF made with pdf-lib: a title and section headings set larger than the body text, over two
 * pages — what a company's exported handbook looks like to the PDF reader. `headings: false` sets everything
 * at the body size (a PDF the reader must cut by page).
 */
export async function handbookPdf(options: { headings?: boolean } = {}): Promise<Uint8Array> {
  const headings = options.headings ?? true;
  const doc = await PDFDocument.create();
  const regular = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const pages: { size: number; text: string }[][] = [
    [
      { size: 22, text: 'Returns' },
      { size: 16, text: 'Refund window' },
      { size: 11, text: 'You can get a refund within 30 days of delivery' },
      { size: 11, text: 'if the item is unused and in its original box.' },
      { size: 16, text: 'Exchanges' },
      { size: 11, text: 'Exchanges for another size are free of charge.' },
    ],
    [
      { size: 22, text: 'Shipping' },
      { size: 16, text: 'Delivery times' },
      { size: 11, text: 'Standard delivery takes 3 to 5 working days;' },
      { size: 11, text: 'express delivery arrives the next day.' },
    ],
  ];
  for (const lines of pages) {
    const page = doc.addPage([595, 842]);
    let y = 780;
    for (const line of lines) {
      const size = headings ? line.size : 11;
      page.drawText(line.text, { x: 50, y, size, font: headings && size > 11 ? bold : regular });
      y -= size * 1.6;
    }
  }
  return doc.save();
}
