import express from 'express';

/**
 * What Tidepool's uploaders ask before an upload, without credentials: `GET /info` (the data
 * schema version and the oldest uploader version accepted, as Tidepool's jellyfish answers it;
 * uploaders refuse to run when older) and `GET /v1/time` (the server's clock, to correct the
 * device's), in the platform's `{data}` wrapper.
 */
export function uploadInfoRouter(): express.Router {
  const router = express.Router();
  router.get('/info', (_req, res) => {
    res.json({ versions: { schema: 3, uploaderMinimum: '0.333.0' } });
  });
  router.get('/v1/time', (_req, res) => {
    res.json({ data: { time: new Date().toISOString() } });
  });
  return router;
}
