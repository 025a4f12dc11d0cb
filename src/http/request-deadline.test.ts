import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { requestDeadline, uploadDeadline } from './request-deadline';

/** Sends the head and the first half of a 10-byte body; `rest()` sends the other half. */
function halfSent(port: number, path: string) {
  const socket = net.connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  const answer = new Promise<string>((resolve) => socket.on('close', () => resolve(Buffer.concat(chunks).toString())));
  socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\nConnection: close\r\n\r\n12345`);
  return { answer, rest: () => socket.write('67890') };
}

describe('request deadlines', () => {
  let server: http.Server;
  let port: number;
  beforeAll(async () => {
    const app = express();
    app.use(requestDeadline(300));
    const echo: express.RequestHandler = (req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (part: Buffer) => parts.push(part));
      req.on('end', () => res.send(Buffer.concat(parts).toString()));
    };
    app.post('/form', echo);
    app.post('/upload', uploadDeadline(60_000), echo);
    server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('answers 408 and closes when a body stops arriving, as Node does, but lets an upload take its own time', async () => {
    const upload = halfSent(port, '/upload');
    const form = halfSent(port, '/form');
    expect(await form.answer).toMatch(/^HTTP\/1.1 408 Request Timeout\r\n/);
    // Begun with the form, the upload outlived the form's deadline.
    upload.rest();
    expect(await upload.answer).toMatch(/^HTTP\/1.1 200 OK\r\n[\s\S]*\r\n\r\n1234567890$/);
  });

  it('leaves alone a body that arrives in time', async () => {
    const form = halfSent(port, '/form');
    form.rest();
    expect(await form.answer).toMatch(/^HTTP\/1.1 200 OK\r\n[\s\S]*1234567890$/);
  });
});
