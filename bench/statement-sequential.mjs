// The baseline of bench/statement-export.mjs: the plain loop anyone would write first. One page at a time
// with node:http (keep-alive), the same page size and the same pinned date range as pix, each entry written
// as one ndjson line to stdout. No validation, no concurrency.
// Usage: node bench/statement-sequential.mjs BASE_URL TOKEN PAGE_SIZE DATE_FROM DATE_TO
import { Agent, request } from 'node:http';

const [base, token, pageSizeText, dateFrom, dateTo] = process.argv.slice(2);
const pageSize = Number(pageSizeText);
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

function getPage(offset) {
  const url = new URL('/api/financial/v1/account/transactions', base);
  url.searchParams.set('dateFrom', dateFrom);
  url.searchParams.set('dateTo', dateTo);
  url.searchParams.set('limit', String(pageSize));
  url.searchParams.set('offset', String(offset));
  return new Promise((resolve, reject) => {
    request(
      url,
      { agent, headers: { accept: 'application/json', authorization: `Bearer ${token}` } },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => {
          if (res.statusCode !== 200) reject(new Error(`HTTP ${res.statusCode}`));
          else resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        });
        res.on('error', reject);
      },
    )
      .on('error', reject)
      .end();
  });
}

function write(text) {
  return process.stdout.write(text)
    ? undefined
    : new Promise((resolve) => process.stdout.once('drain', resolve));
}

let offset = 0;
let total = Number.POSITIVE_INFINITY;
while (offset < total) {
  const page = await getPage(offset);
  total = page.total;
  if (page.results.length === 0) break;
  let text = '';
  for (const entry of page.results) text += `${JSON.stringify(entry)}\n`;
  await write(text);
  offset += page.results.length;
}
agent.destroy();
