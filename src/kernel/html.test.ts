import { describe, expect, it } from '@jest/globals';
import { escapeHtml, html } from './html';

describe('escapeHtml', () => {
  it('leaves no character that opens markup, an entity or an attribute value', () => {
    expect(escapeHtml(`<script>alert("x")</script> & 'y'`)).toBe(
      '&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62; &#38; &#39;y&#39;',
    );
    expect(escapeHtml('Dr. Ünal, 5 mg/dl')).toBe('Dr. Ünal, 5 mg/dl');
  });
});

describe('html', () => {
  it('escapes interpolated values and lists, keeps Html as it is, and leaves out null, undefined and false', () => {
    const inner = html`<b>${'<i>'}</b>`;
    expect(html`<p title="${'"x"'}">${inner}${['<a>', inner]}${null}${undefined}${false}</p>`.toString()).toBe(
      '<p title="&#34;x&#34;"><b>&#60;i&#62;</b>&#60;a&#62;<b>&#60;i&#62;</b></p>',
    );
  });
});
