import { describe, expect, it } from '@jest/globals';
import { composeMail, linkTo } from './render';

describe('linkTo', () => {
  it('builds an absolute link under PUBLIC_URL, its path prefix kept and its values encoded', () => {
    expect(linkTo('https://islet.example.org/care/', '/confirm', { key: 'a b&c', email: 'x+y@example.org' })).toBe(
      'https://islet.example.org/care/confirm?key=a+b%26c&email=x%2By%40example.org',
    );
    expect(() => linkTo('https://islet.example.org', 'confirm')).toThrow(/starts with \//);
  });
});

describe('composeMail', () => {
  const content = {
    to: 'alice@example.org',
    kind: 'careteam_invitation',
    subject: 'Bob <b>invites</b> you',
    paragraphs: ['Bob "<img src=x onerror=alert(1)>" wants to share data with you.'],
    action: { label: 'See the invitation', url: 'https://islet.example.org/i?key=1&x="2"' },
    footer: ['If you did not expect this mail, ignore it.'],
  };

  it('writes the same words as plain text, with the bare link on a line of its own', () => {
    const { text, to, kind, subject } = composeMail(content);
    expect({ to, kind, subject }).toEqual({ to: content.to, kind: content.kind, subject: content.subject });
    expect(text.split('\n')).toContain(content.action.url);
    expect(text).toContain(content.paragraphs[0]);
    expect(text).toContain(content.footer[0]);
  });

  it('escapes every value in the HTML part: no markup from the values survives', () => {
    const { html } = composeMail(content);
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>');
    expect(html).toContain('&#60;img src=x onerror=alert(1)&#62;');
    expect(html).toContain('href="https://islet.example.org/i?key=1&#38;x=&#34;2&#34;"');
  });

  it('refuses an action that does not link over http(s)', () => {
    expect(() => composeMail({ ...content, action: { label: 'x', url: 'javascript:alert(1)' } })).toThrow(/http\(s\)/);
  });
});
