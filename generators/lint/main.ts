/** `npm run lint:spec`: strict lint of the bundled spec; exits 1 on any error or warning. */
import { formatLintReport, lintSpec } from './lint-spec.js';

const report = await lintSpec(process.argv[2]);
console.log(formatLintReport(report));
process.exitCode = report.errors + report.warnings === 0 ? 0 : 1;
