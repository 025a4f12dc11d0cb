/**
 * The page's CSP allows no inline style but those carrying the response's nonce. Monaco (and
 * GraphiQL through it) create <style> elements for themes, fonts and layout; every <style>
 * element created on this page gets the nonce, so those apply and nothing injected does.
 */
export function nonceStyleElements(nonce: string): void {
  const createElement = Document.prototype.createElement;
  Document.prototype.createElement = function (this: Document, tagName: string, options?: ElementCreationOptions) {
    const element = createElement.call(this, tagName, options);
    if (element instanceof HTMLStyleElement) element.nonce = nonce;
    return element;
  } as typeof createElement;
}
