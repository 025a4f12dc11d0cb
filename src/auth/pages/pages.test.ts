import { describe, expect, it } from '@jest/globals';
import { contentSecurityPolicy, cspSource } from './pages';

describe('the pages’ Content-Security-Policy', () => {
  it('lets forms post to the service and go on to the client’s redirect URI only', () => {
    expect(contentSecurityPolicy()).toMatch(/; form-action 'self'$/);
    expect(contentSecurityPolicy(['http://127.0.0.1:9/callback?x=1#y'])).toMatch(
      /; form-action 'self' http:\/\/127\.0\.0\.1:9\/callback$/,
    );
  });

  it('never lets a redirect URI add directives or sources', () => {
    expect(cspSource('http://127.0.0.1/cb;script-src *,x')).toBe('http://127.0.0.1/cb%3Bscript-src%20*%2Cx');
    expect(cspSource('com.example.app:/callback')).toBe('com.example.app:');
    expect(cspSource('not a url')).toBeUndefined();
    expect(cspSource('javascript:alert(1)')).toBeUndefined();
    expect(contentSecurityPolicy(['not a url'])).toMatch(/form-action 'self'$/);
  });
});
