import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { chain } from './chain';

/** A handler that notes its name in the answer's X-Ran header and passes on. */
const ran = (name: string) => (_req: Request, res: Response, next: NextFunction) => {
  res.setHeader('X-Ran', [res.getHeader('X-Ran'), name].filter(Boolean).join(','));
  next();
};

describe('chain', () => {
  let server: http.Server;
  let url: string;
  beforeAll(async () => {
    const app = express();
    app.use(
      '/ok',
      chain(ran('a'), ran('b'), (_req, res) => void res.send('done')),
    );
    app.use('/passes', chain(ran('a'), ran('b')));
    app.use('/passes', (_req, res) => void res.send('after'));
    app.use(
      '/fails',
      chain(ran('a'), (_req, _res, next) => next(new Error('told')), ran('never')),
    );
    app.use(
      '/throws',
      chain(ran('a'), () => {
        throw new Error('thrown');
      }),
    );
    app.use(
      '/rejects',
      chain(ran('a'), async () => {
        await Promise.resolve();
        throw new Error('rejected');
      }),
    );
    app.use((error: Error, _req: Request, res: Response, _next: NextFunction) => {
      res.status(500).send(`error: ${error.message}`);
    });
    server = http.createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const get = async (path: string) => {
    const response = await fetch(`${url}${path}`);
    return { status: response.status, ran: response.headers.get('x-ran'), body: await response.text() };
  };

  it('runs its handlers in order, and the next layer after the last', async () => {
    expect(await get('/ok')).toEqual({ status: 200, ran: 'a,b', body: 'done' });
    expect(await get('/passes')).toEqual({ status: 200, ran: 'a,b', body: 'after' });
  });

  it("hands a handler's error, throw or rejected promise to express's error handlers and stops there", async () => {
    expect(await get('/fails')).toEqual({ status: 500, ran: 'a', body: 'error: told' });
    expect(await get('/throws')).toEqual({ status: 500, ran: 'a', body: 'error: thrown' });
    expect(await get('/rejects')).toEqual({ status: 500, ran: 'a', body: 'error: rejected' });
  });
});
