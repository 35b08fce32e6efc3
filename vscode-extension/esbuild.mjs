// Builds dist/extension.js (one CommonJS bundle; `vscode` is provided by the editor), or with --tests
// the unit tests into out-test/ (one bundle per test file, pure modules only).
import { build } from "esbuild";
import { readdirSync, rmSync } from "node:fs";

const production = process.argv.includes("--production");
const tests = process.argv.includes("--tests");

if (tests) {
  rmSync("out-test", { recursive: true, force: true });
  await build({
    entryPoints: readdirSync("test").filter((f) => f.endsWith(".test.ts")).map((f) => `test/${f}`),
    outdir: "out-test", bundle: true, platform: "node", format: "cjs", target: "node20",
    external: ["vscode"], sourcemap: "inline", logLevel: "warning",
  });
} else {
  await build({
    entryPoints: ["src/extension.ts"], outfile: "dist/extension.js", bundle: true, platform: "node",
    format: "cjs", target: "node18", external: ["vscode"], minify: production, sourcemap: !production,
    logLevel: "info",
  });
}
