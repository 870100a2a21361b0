import { describe, expect, it } from 'vitest';
import { escapeHtml, markdownToHtml, renderHtml } from './render-html.js';

describe('report HTML', () => {
  it('converts the report subset of Markdown and escapes text', () => {
    const html = markdownToHtml(
      '# T <x>\n\nline one  \nline `two`\n\n| a | b |\n|---|---|\n| 1 | **2** |\n\n- item\n  - sub\n\n> note & more',
    );
    expect(html).toContain('<h1>T &lt;x&gt;</h1>');
    expect(html).toContain('<p>line one<br>line <code>two</code></p>');
    expect(html).toContain(
      '<table><thead><tr><th>a</th><th>b</th></tr></thead><tbody><tr><td>1</td><td><strong>2</strong></td></tr></tbody></table>',
    );
    expect(html).toContain('<ul><li>item<ul><li>sub</li></ul></li></ul>');
    expect(html).toContain('<blockquote>note &amp; more</blockquote>');
  });
  it('is one self-contained page: inline SVG, escaped pair texts, no external resources', () => {
    const page = renderHtml({
      title: 'R',
      markdown: '# R',
      plots: [{ title: 'p', svg: '<svg></svg>' }],
      samples: [
        {
          seedId: 's',
          query: '<script>alert(1)</script>',
          instruction: 'I',
          newInstruction: null,
          positive: 'a',
          negative: 'b',
          lever: null,
          status: 'none',
          reason: null,
          verification: null,
        },
      ],
    });
    expect(page).toContain('<svg></svg>');
    expect(page).toContain(escapeHtml('<script>alert(1)</script>'));
    expect(page).not.toMatch(/(src|href)="https?:/);
  });
});
