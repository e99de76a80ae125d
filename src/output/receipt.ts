/**
 * A payment advice (domain/receipt.ts) as a person reads it: an HTML page, or a PDF drawn with pdf-lib
 * (loaded only here, only for receipts: architecture rule 8). Every value passes through the one sanitizer
 * first (controls and direction marks shown escaped), so a receiver named `</td>` or with a right-to-left
 * override cannot move a line; a value too long for its place wraps, and past a few lines is cut with `…`.
 */
import { type Receipt, receiptLines } from '../domain/receipt.js';
import { escapeUnsafe, truncate } from './sanitize.js';

const HTML_ENTITY: Record<string, string> = {
  '<': '&lt;',
  '>': '&gt;',
  '&': '&amp;',
  '"': '&quot;',
  "'": '&#39;',
};
const html = (text: string) => escapeUnsafe(text).replace(/[<>&"']/g, (char) => HTML_ENTITY[char]!);

export function receiptHtml(receipt: Receipt): string {
  const rows = receiptLines(receipt)
    .map(
      ([label, value]) =>
        // A digest (one long word) is kept on one line, smaller, as the PDF keeps it: compared whole.
        `<tr><th scope="row">${html(label)}</th><td dir="ltr"${/^sha256:[0-9a-f]{64}$/.test(value) ? ' class="whole"' : ''}>${html(truncate(value, 300))}</td></tr>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${html(receipt.title)}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:42rem;margin:2rem auto;color:#111}
table{border-collapse:collapse;width:100%;table-layout:fixed}
th{width:11rem;text-align:left;vertical-align:top;padding:.3rem .6rem .3rem 0;font-weight:600}
td{padding:.3rem 0;overflow-wrap:anywhere;unicode-bidi:isolate;font-variant-numeric:tabular-nums}
td.whole{overflow-wrap:normal;white-space:nowrap;font-size:.8em}
.notice{margin-top:1.5rem;padding:.8rem;border:1px solid #999;background:#f6f6f6}
</style>
</head>
<body>
<h1>${html(receipt.title)}</h1>
<table>
${rows}
</table>
<p class="notice">${html(receipt.notice)}</p>
</body>
</html>
`;
}

const A4: [number, number] = [595.28, 841.89];
const MARGIN = 50;
const LABEL_WIDTH = 130;
const SIZE = 10;
const LEADING = 14;
const MAX_LINES = 4;

/** Lines of at most `width` points, breaking at spaces where it can and anywhere when a word is too long. */
function wrap(text: string, width: number, measure: (text: string) => number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/(?<= )/)) {
    if (measure(line + word) <= width) {
      line += word;
      continue;
    }
    if (line !== '') lines.push(line.trimEnd());
    line = '';
    for (const char of Array.from(word)) {
      if (measure(line + char) > width && line !== '') {
        lines.push(line);
        line = '';
      }
      line += char;
    }
  }
  if (line.trim() !== '') lines.push(line.trimEnd());
  if (lines.length <= MAX_LINES) return lines;
  const kept = lines.slice(0, MAX_LINES);
  kept[MAX_LINES - 1] = `${kept[MAX_LINES - 1]!.slice(0, -1)}…`;
  return kept;
}

/** The receipt as a one-page A4 PDF. */
export async function receiptPdf(receipt: Receipt): Promise<Uint8Array> {
  // pdf-lib is CommonJS: bundled, its exports are the module's default export (module.exports).
  const { PDFDocument, StandardFonts, rgb } = (await import('pdf-lib')).default;
  const doc = await PDFDocument.create();
  const when = new Date(Date.parse(receipt.when.iso) || 0);
  doc.setTitle(receipt.title);
  doc.setProducer('pix');
  doc.setCreator('pix receipt');
  doc.setCreationDate(when);
  doc.setModificationDate(when);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  // The standard fonts encode WinAnsi only: any other character is shown as its escape, never dropped.
  const encodable = new Set(font.getCharacterSet());
  const printable = (text: string) =>
    Array.from(escapeUnsafe(text))
      .map((char) =>
        encodable.has(char.codePointAt(0)!) ? char : `\\u{${char.codePointAt(0)!.toString(16)}}`,
      )
      .join('');
  const page = doc.addPage(A4);
  let y = A4[1] - MARGIN;
  const title = printable(receipt.title);
  page.drawText(title, { x: MARGIN, y, size: 15, font: bold });
  y -= 32;
  const valueWidth = A4[0] - 2 * MARGIN - LABEL_WIDTH;
  const measure = (text: string) => font.widthOfTextAtSize(text, SIZE);
  for (const [label, value] of receiptLines(receipt)) {
    page.drawText(printable(label), { x: MARGIN, y, size: SIZE, font: bold });
    const text = printable(value);
    // A digest or an id is one word a reader compares whole: set smaller to fit its line, never cut in two
    // (down to 6 points, which a printed page still shows).
    const oneWord = !/\s/.test(text) && measure(text) > valueWidth;
    const smaller = (SIZE * valueWidth) / measure(text);
    if (oneWord && smaller >= 6) {
      page.drawText(text, { x: MARGIN + LABEL_WIDTH, y, size: smaller, font });
      y -= LEADING + 4;
      continue;
    }
    for (const line of wrap(text, valueWidth, measure)) {
      page.drawText(line, { x: MARGIN + LABEL_WIDTH, y, size: SIZE, font });
      y -= LEADING;
    }
    y -= 4;
  }
  y -= 10;
  page.drawRectangle({
    x: MARGIN - 6,
    y: y - 3 * LEADING + 6,
    width: A4[0] - 2 * MARGIN + 12,
    height: 3 * LEADING + 4,
    borderColor: rgb(0.4, 0.4, 0.4),
    borderWidth: 0.8,
  });
  for (const line of wrap(printable(receipt.notice), A4[0] - 2 * MARGIN, measure)) {
    page.drawText(line, { x: MARGIN, y, size: SIZE, font });
    y -= LEADING;
  }
  return doc.save();
}
