// The floor for one-request commands: a bare node:http GET of the same URL, with the same headers pix sends,
// body to stdout. Nothing else loaded: this is what Node itself costs for one request.
// Usage: node bench/floor-http.mjs URL [TOKEN]
import { request } from 'node:http';

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
