// The floor for one-request commands: a bare node:http GET of the same URL, with the same headers pix sends,
// body to stdout. Nothing else loaded: this is what Node itself costs for one request.
//
// CommonJS on purpose: an ES module's `import 'node:http'` builds node:http's ESM facade, and on Node 24 that
// reads the lazy WebSocket globals (≈ 20 ms that no client needs). A one-GET script written the plain way pays
// none of it, and pix must be measured against that, not against a floor made slower than it need be.
// Usage: node bench/floor-http.cjs URL [TOKEN]
const { request } = require('node:http');

const [url, token] = process.argv.slice(2);
const headers = { accept: 'application/json', 'user-agent': 'pix-cli' };
if (token) headers.authorization = `Bearer ${token}`;
request(url, { headers }, (response) => {
  const chunks = [];
  response.on('data', (chunk) => chunks.push(chunk));
  response.on('end', () => {
    process.stdout.write(Buffer.concat(chunks));
    process.exitCode = response.statusCode === 200 ? 0 : 1;
  });
})
  .on('error', (error) => {
    process.stderr.write(`${error.message}\n`);
    process.exitCode = 1;
  })
  .end();
