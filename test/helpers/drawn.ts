/**
 * What LibreOffice draws on a page, for the oracle tests: the words of a PDF page it printed, where they
 * are (pdftotext -bbox, poppler-utils), and how well each stands out from what is drawn under it (the
 * page rendered by pdftoppm: the most common colour in the word's box is its background, the pixel of the
 * box most different from it its ink, compared by WCAG's contrast ratio).
 *
 * Why the page and not a CSV export "as shown": LibreOffice prints a number its column cannot hold as
 * `###` and cuts text at a neighbour that holds something — both into the PDF's text as drawn — while a
 * CSV keeps every value whole. Colours are in no text export at all: white text, or yellow on yellow, is
 * in the PDF's text like any other, and only its pixels say a person does not see it.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { runProcess } from './cli.js';

/** A word as drawn, its box in points from the page's top left. */
export interface DrawnWord {
  text: string;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export interface DrawnPage {
  words: DrawnWord[];
  /** The contrast of the word's ink with its background, as the page's pixels show it (1 to 21). */
  contrast(word: DrawnWord): number;
}

/** True when pdftotext and pdftoppm (poppler-utils) are installed. */
export function popplerInstalled(): boolean {
  return ['pdftotext', 'pdftoppm'].every(
    (tool) => spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).status === 0,
  );
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** The first page of `pdf`, its raster rendered at `dpi` into `prefix`.ppm. */
export async function drawnPage(pdf: string, prefix: string, dpi = 150): Promise<DrawnPage> {
  const env = { PATH: process.env.PATH ?? '' };
  const text = await runProcess('pdftotext', ['-bbox', '-f', '1', '-l', '1', pdf, '-'], { env });
  if (text.code !== 0) throw new Error(`pdftotext ${pdf}: ${text.stderr}`);
  const words: DrawnWord[] = [];
  const word = /<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g;
  for (const m of text.stdout.matchAll(word)) {
    words.push({
      x0: Number(m[1]),
      y0: Number(m[2]),
      x1: Number(m[3]),
      y1: Number(m[4]),
      text: m[5]!.replace(/&(#\d+|\w+);/g, (all, name: string) =>
        name.startsWith('#') ? String.fromCodePoint(Number(name.slice(1))) : (ENTITIES[name] ?? all),
      ),
    });
  }
  // Only as far down as words are drawn (and a line more): a whole A3 page is 13 MB of pixels.
  const bottom = Math.max(0, ...words.map((w) => w.y1)) + 24;
  const render = await runProcess(
    'pdftoppm',
    [
      '-r',
      String(dpi),
      '-f',
      '1',
      '-l',
      '1',
      '-H',
      String(Math.ceil((bottom * dpi) / 72)),
      '-singlefile',
      pdf,
      prefix,
    ],
    { env, timeoutMs: 60_000 },
  );
  if (render.code !== 0) throw new Error(`pdftoppm ${pdf}: ${render.stderr}`);
  const raster = readPpm(readFileSync(`${prefix}.ppm`));
  const scale = dpi / 72;
  return {
    words,
    contrast(w) {
      const counts = new Map<number, number>();
      const pixels: number[] = [];
      for (let y = Math.floor(w.y0 * scale); y < Math.ceil(w.y1 * scale) && y < raster.height; y++) {
        for (let x = Math.floor(w.x0 * scale); x < Math.ceil(w.x1 * scale) && x < raster.width; x++) {
          const at = raster.offset + 3 * (y * raster.width + x);
          const rgb = (raster.bytes[at]! << 16) | (raster.bytes[at + 1]! << 8) | raster.bytes[at + 2]!;
          pixels.push(rgb);
          counts.set(rgb, (counts.get(rgb) ?? 0) + 1);
        }
      }
      let background = 0xffffff;
      let most = -1;
      for (const [rgb, count] of counts) {
        if (count > most) [background, most] = [rgb, count];
      }
      let best = 1;
      for (const rgb of pixels) best = Math.max(best, contrastRatio(rgb, background));
      return best;
    },
  };
}

function readPpm(bytes: Buffer): { width: number; height: number; offset: number; bytes: Buffer } {
  // P6, width, height, 255, each separated by one whitespace, then RGB bytes.
  const header = /^P6\s+(\d+)\s+(\d+)\s+255\s/.exec(bytes.subarray(0, 64).toString('latin1'));
  if (!header) throw new Error('not a binary PPM');
  return { width: Number(header[1]), height: Number(header[2]), offset: header[0].length, bytes };
}

/** WCAG 2's contrast ratio, written here again so that the oracle does not share pix's code. */
function contrastRatio(a: number, b: number): number {
  const channel = (byte: number) => {
    const c = byte / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = (rgb: number) =>
    0.2126 * channel(rgb >> 16) + 0.7152 * channel((rgb >> 8) & 0xff) + 0.0722 * channel(rgb & 0xff);
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p) as [number, number];
  return (x + 0.05) / (y + 0.05);
}
