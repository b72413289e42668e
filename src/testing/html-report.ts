import { relative } from 'node:path';
import { formatTranscript, stereoWav, transcript } from './report.js';
import type { ScenarioResult } from './runner.js';
import { figuresLine, suiteReport } from './suite-report.js';

const html = (text: string) => text.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!);

const style = `body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:70rem;padding:0 1rem;color:#222}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}
.pass{color:#137333}.fail{color:#b3261e}pre{background:#f6f6f6;padding:.6rem;overflow:auto;font-size:12px}
section{border-top:2px solid #eee;margin-top:1.5rem}audio{width:100%}`;

function shown(file: string | undefined): string {
  return file ? relative(process.cwd(), file) || file : '(in code)';
}

/**
 * The suite report as one self-contained HTML page: the figures per scenario and for the suite, then every run
 * that did not pass with its failures, judge verdicts, transcript and the call's audio (a stereo WAV inline:
 * caller left, agent right).
 */
export function htmlReport(results: readonly ScenarioResult[], title = 'shoal test'): string {
  const report = suiteReport(results);
  const rows = report.scenarios
    .map((scenario) => {
      const mark = scenario.passed === scenario.runs ? '<span class="pass">✓</span>' : '<span class="fail">✗</span>';
      return `<tr><td>${mark} ${html(scenario.name)}<br><small>${html(shown(scenario.file))}</small></td><td>${html(figuresLine(scenario))}</td></tr>`;
    })
    .join('\n');
  const failing = results
    .filter((result) => !result.passed)
    .map((result) => {
      const problems = result.error !== undefined ? [`error: ${result.error}`] : result.failures.map((failure) => `${failure.step !== undefined ? `step ${failure.step}` : 'call'}: ${failure.message}`);
      const judged = result.judged.map((entry) => `<li>judge ${entry.verdict}: “${html(entry.criterion)}” — ${html(entry.reason)}</li>`).join('');
      const audio = result.log ? `<audio controls preload="none" src="data:audio/wav;base64,${Buffer.from(stereoWav(result.log)).toString('base64')}"></audio>` : '';
      const lines = result.log ? `<pre>${html(formatTranscript(transcript(result.log)))}</pre>` : '';
      return `<section><h3 class="fail">✗ ${html(result.name)} <small>(${html(shown(result.file))}, seed ${result.seed})</small></h3>
<ul>${problems.map((problem) => `<li>${html(problem)}</li>`).join('')}${judged}</ul>
${audio}
${lines}</section>`;
    })
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${html(title)}</title><style>${style}</style></head>
<body>
<h1>${html(title)}</h1>
<p><b>Suite</b>: ${report.suite.scenarios} scenarios, ${html(figuresLine(report.suite))}</p>
<table><thead><tr><th>scenario</th><th>over its runs</th></tr></thead><tbody>
${rows}
</tbody></table>
${failing ? `<h2>Failing calls</h2>\n${failing}` : '<p class="pass">Every run passed.</p>'}
</body></html>
`;
}
