/**
 * Monaco runs its language services in web workers. They are bundled with the page and served
 * from the service (see src/playground/build.ts), never from a CDN or a blob.
 */
export function setUpWorkers(assets: string): void {
  const script = (label: string) => {
    if (label === 'graphql') return 'graphql.worker.js';
    if (label === 'json') return 'json.worker.js';
    return 'editor.worker.js';
  };
  (globalThis as { MonacoEnvironment?: unknown }).MonacoEnvironment = {
    getWorker: (_id: string, label: string) => new Worker(`${assets}${script(label)}`, { name: label }),
  };
}
