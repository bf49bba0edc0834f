// Runs a test command several times in a row with CPU-bound processes beside it, to show that a
// tier does not depend on timing (issue 18 item 16). Stops at the first failing run.
//
//   node scripts/under-load.mjs [--burners N] [--runs K] [-- command …]
//   default: 2 burners, 3 runs of `npm run test:ui`
//
// Each burner is a separate Node process spinning on arithmetic (one core each); they are killed
// when the runs end, however they end.
import { spawn } from 'node:child_process';

function parse(argv) {
  const options = { burners: 2, runs: 3, command: ['npm', 'run', 'test:ui'] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      if (i + 1 < argv.length) options.command = argv.slice(i + 1);
      break;
    }
    const value = Number(argv[i + 1]);
    if ((a === '--burners' || a === '--runs') && Number.isInteger(value) && value >= 0) {
      options[a.slice(2)] = value;
      i++;
    } else {
      console.error(`usage: node scripts/under-load.mjs [--burners N] [--runs K] [-- command …]  (unknown: ${a})`);
      process.exit(2);
    }
  }
  return options;
}

const BURN = 'let x = 0; for (;;) { x = (x * 1103515245 + 12345) % 2147483648; }';

const { burners, runs, command } = parse(process.argv.slice(2));
const spinning = Array.from({ length: burners }, () => spawn(process.execPath, ['-e', BURN], { stdio: 'ignore' }));
const stopBurners = () => spinning.forEach((p) => p.kill('SIGKILL'));
process.on('exit', stopBurners);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    stopBurners();
    process.exit(130);
  });
}

const results = [];
let status = 0;
for (let run = 1; run <= runs; run++) {
  const started = Date.now();
  console.log(`\n── run ${run}/${runs}: ${command.join(' ')} (with ${burners} CPU-bound processes beside it) ──`);
  const code = await new Promise((resolve) => {
    const child = spawn(command[0], command.slice(1), { stdio: 'inherit' });
    child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0)));
    child.on('error', (err) => {
      console.error(err.message);
      resolve(1);
    });
  });
  results.push({ run, code, seconds: (Date.now() - started) / 1000 });
  if (code !== 0) {
    status = code;
    break;
  }
}
stopBurners();
console.log(`\n── under load (${burners} burners) ──`);
for (const r of results) console.log(`  run ${r.run}: ${r.code === 0 ? 'passed' : `FAILED (exit ${r.code})`} in ${r.seconds.toFixed(1)} s`);
if (results.length < runs) console.log(`  stopped after run ${results.length}: it failed`);
process.exit(status);
