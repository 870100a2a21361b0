/**
 * The self-contained HTML report: the Markdown report's content (converted here, for the
 * subset that report uses: headings, paragraphs, lists, tables, block quotes, `code`, **bold**),
 * the plots as inline SVG, and a browsable sample of synthesized pairs with their verdicts
 * (filter box and status menu; a few lines of inline script). Nothing is fetched at view time.
 */
import type { PairSample } from './build-report.js';

export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function inline(s: string): string {
  return escapeHtml(s)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');
}

/** Markdown (the report's subset) to HTML. */
export function markdownToHtml(md: string): string {
  const lines = md.split('\n');
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const h = /^(#{1,6}) (.*)$/.exec(line);
    if (h) {
      out.push(`<h${h[1]!.length}>${inline(h[2]!)}</h${h[1]!.length}>`);
      i++;
    } else if (line.startsWith('|')) {
      const rows: string[][] = [];
      while (i < lines.length && lines[i]!.startsWith('|')) {
        rows.push(
          lines[i]!.slice(1, -1)
            .split(' | ')
            .map((c) => c.trim().replace(/^\| ?| ?\|$/g, '')),
        );
        i++;
      }
      const [head, , ...body] = rows;
      out.push(
        `<table><thead><tr>${head!.map((c) => `<th>${inline(c)}</th>`).join('')}</tr></thead><tbody>${body
          .map((r) => `<tr>${r.map((c) => `<td>${inline(c)}</td>`).join('')}</tr>`)
          .join('')}</tbody></table>`,
      );
    } else if (/^\s*- /.test(line)) {
      const items: string[] = [];
      while (i < lines.length && /^\s*- /.test(lines[i]!)) {
        const nested = /^\s{2,}- /.test(lines[i]!);
        const text = inline(lines[i]!.replace(/^\s*- /, ''));
        if (nested && items.length) items[items.length - 1] += `<ul><li>${text}</li></ul>`;
        else items.push(text);
        i++;
      }
      out.push(`<ul>${items.map((x) => `<li>${x.replace(/<\/ul><ul>/g, '')}</li>`).join('')}</ul>`);
    } else if (line.startsWith('> ')) {
      out.push(`<blockquote>${inline(line.slice(2))}</blockquote>`);
      i++;
    } else if (line.trim() === '') {
      i++;
    } else {
      const para: string[] = [];
      while (i < lines.length && lines[i]!.trim() !== '' && !/^(#|\||\s*- |> )/.test(lines[i]!)) {
        para.push(inline(lines[i]!.replace(/ {2}$/, '')));
        i++;
      }
      out.push(`<p>${para.join('<br>')}</p>`);
    }
  }
  return out.join('\n');
}

function pairsBrowser(samples: readonly PairSample[]): string {
  const rows = samples
    .map(
      (s) =>
        `<tr data-status="${escapeHtml(s.status)}"><td>${escapeHtml(s.query)}</td><td>${escapeHtml(s.instruction)}</td><td>${escapeHtml(s.newInstruction ?? '—')}</td><td>${escapeHtml(s.positive)}</td><td>${escapeHtml(s.negative)}</td><td>${escapeHtml(s.lever ?? '—')}</td><td class="v-${escapeHtml(s.status)}">${escapeHtml(s.status)}${s.reason ? `: ${escapeHtml(s.reason)}` : ''}${s.verification !== null ? ` (judge ${s.verification.toFixed(2)})` : ''}</td></tr>`,
    )
    .join('\n');
  const statuses = [...new Set(samples.map((s) => s.status))].sort();
  return `<h2>Synthesized pairs (sample of ${samples.length})</h2>
<p>Query q, original instruction I (D+ relevant), synthesized complement I' (D- relevant), and the run's verdict.</p>
<p><input id="pair-filter" type="search" placeholder="filter text" aria-label="filter pairs">
<select id="pair-status" aria-label="status"><option value="">all statuses</option>${statuses.map((s) => `<option>${escapeHtml(s)}</option>`).join('')}</select>
<span id="pair-count"></span></p>
<table id="pairs"><thead><tr><th>q</th><th>I</th><th>I'</th><th>D+</th><th>D-</th><th>lever</th><th>verdict</th></tr></thead><tbody>
${rows}
</tbody></table>
<script>
(function () {
  var input = document.getElementById('pair-filter');
  var status = document.getElementById('pair-status');
  var count = document.getElementById('pair-count');
  var rows = Array.prototype.slice.call(document.querySelectorAll('#pairs tbody tr'));
  function apply() {
    var q = input.value.toLowerCase();
    var s = status.value;
    var shown = 0;
    rows.forEach(function (r) {
      var ok = (!s || r.getAttribute('data-status') === s) && (!q || r.textContent.toLowerCase().indexOf(q) >= 0);
      r.style.display = ok ? '' : 'none';
      if (ok) shown++;
    });
    count.textContent = shown + ' of ' + rows.length + ' shown';
  }
  input.addEventListener('input', apply);
  status.addEventListener('change', apply);
  apply();
})();
</script>`;
}

export function renderHtml(input: {
  title: string;
  markdown: string;
  plots: { title: string; svg: string }[];
  samples: readonly PairSample[];
}): string {
  const body = markdownToHtml(input.markdown);
  const plots = input.plots
    .map((p) => `<figure><figcaption>${escapeHtml(p.title)}</figcaption>${p.svg}</figure>`)
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(input.title)}</title>
<link rel="icon" href="data:,">
<style>
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;max-width:1200px;padding:0 1rem;color:#222}
table{border-collapse:collapse;margin:.5rem 0 1rem;font-size:13px}th,td{border:1px solid #ccc;padding:3px 7px;vertical-align:top;text-align:left}
th{background:#f3f3f3}code{background:#f5f5f5;padding:0 3px;font-size:12px;word-break:break-all}
blockquote{border-left:4px solid #c00;background:#fff4f4;margin:1rem 0;padding:.5rem 1rem}
figure{display:inline-block;margin:.5rem 1rem .5rem 0;vertical-align:top}figcaption{font-weight:600;margin-bottom:.25rem}
#pairs td{max-width:260px}.v-accepted{color:#060}.v-rejected{color:#a00}.v-none{color:#666}.v-failed{color:#a60}
</style></head><body>
${body}
<h2>Plots</h2>
${plots}
${pairsBrowser(input.samples)}
</body></html>
`;
}
