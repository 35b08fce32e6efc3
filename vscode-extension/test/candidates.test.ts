import assert from "node:assert/strict";
import { test } from "node:test";
import { baseName, classActions, suggestionOf } from "../src/candidates";

const URI = "file:///w/my%20mod.py";
const TARGET = "file:///w/my%20mod_triton.py";
const range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
// What tritonrl-lsp answers to textDocument/codeAction after a job verified two candidates (lsprotocol's JSON).
const applyAction = (label: string, code: string, id: string) => ({
  title: `Apply verified Triton kernel (${label}, 5/5 trials)`, kind: "refactor.rewrite.tritonrl",
  edit: { documentChanges: [
    { kind: "create", uri: TARGET, options: { overwrite: true } },
    { textDocument: { uri: TARGET, version: null }, edits: [{ range, newText: code }] },
  ] },
  command: { title: "Apply", command: "tritonrl.apply", arguments: [URI, "MyReLU", 1, id] },
});
const ANSWER = [
  { title: "Generate Triton kernel for MyReLU", kind: "refactor.rewrite.tritonrl",
    command: { title: "Generate Triton kernel for MyReLU", command: "tritonrl.generate", arguments: [URI, "MyReLU", 1] } },
  applyAction("1.8× faster", "class ModelNew: best\n", "id1"),
  applyAction("1.1× faster", "class ModelNew: second\n", "id2"),
  { title: "Reject Triton suggestions", kind: "refactor.rewrite.tritonrl",
    command: { title: "Reject Triton suggestions", command: "tritonrl.reject", arguments: [URI, "MyReLU"] } },
  { title: "Generate Triton kernel for Other", kind: "refactor.rewrite.tritonrl",
    command: { title: "g", command: "tritonrl.generate", arguments: [URI, "Other", 1] } },
  { title: "Organize imports", kind: "source.organizeImports", command: { title: "o", command: "python.sortImports" } },
  { title: "a bare Command", command: "tritonrl.generate" },
];

test("actions are grouped by class, candidates in the server's order", () => {
  const groups = classActions(ANSWER);
  assert.deepEqual(groups.map((g) => g.className), ["MyReLU", "Other"]);
  const [mine, other] = groups;
  assert.equal(mine.uri, URI);
  assert.deepEqual(mine.generate?.arguments, [URI, "MyReLU", 1]);
  assert.deepEqual(mine.suggestions.map((s) => [s.target, s.code]),
    [[TARGET, "class ModelNew: best\n"], [TARGET, "class ModelNew: second\n"]]);
  assert.deepEqual(mine.reject?.arguments, [URI, "MyReLU"]);
  assert.equal(other.suggestions.length, 0);
  assert.equal(other.reject, undefined);
  assert.deepEqual(classActions(null), []);
  assert.deepEqual(classActions([42, "x", null]), []);
});

test("an apply action without a text edit is not a suggestion", () => {
  assert.equal(suggestionOf({ title: "x", edit: { documentChanges: [{ kind: "create", uri: TARGET }] } }), undefined);
  assert.equal(suggestionOf({ title: "x" }), undefined);
});

test("file names for titles", () => {
  assert.equal(baseName(TARGET), "my mod_triton.py");
  assert.equal(baseName("tritonrl-candidate:/w/k.py?3"), "k.py");
});
