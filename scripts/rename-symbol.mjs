// Renames one TypeScript symbol everywhere the compiler sees it (tsconfig.test.json: src, test,
// bench), as an editor's "rename symbol" does, so that a rename can be written down as a command
// and run again on another tree (a merged branch):
//   node scripts/rename-symbol.mjs FILE 'LINE-REGEX' NAME NEW
// The symbol is NAME at its first whole-word occurrence on the first line of FILE matching
// LINE-REGEX (a field of an interface, a variable, a function). A property written shorthand
// (`{ service }`) keeps its value (`{ target: service }`); an object literal no type reaches is
// not renamed, and the type-check after the rename says where.
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { createRequire } from "node:module";
const ts = createRequire(resolve("package.json"))("typescript");
const [file, lineRe, name, next] = process.argv.slice(2);
const cfg = ts.getParsedCommandLineOfConfigFile(
  "tsconfig.test.json",
  {},
  {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(String(d.messageText));
    },
  },
);
const host = {
  getScriptFileNames: () => cfg.fileNames,
  getScriptVersion: () => "0",
  getScriptSnapshot: (f) => {
    const t = ts.sys.readFile(f);
    return t === undefined ? undefined : ts.ScriptSnapshot.fromString(t);
  },
  getCurrentDirectory: () => process.cwd(),
  getCompilationSettings: () => cfg.options,
  getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
  fileExists: ts.sys.fileExists,
  readFile: ts.sys.readFile,
  readDirectory: ts.sys.readDirectory,
  directoryExists: ts.sys.directoryExists,
  getDirectories: ts.sys.getDirectories,
};
const ls = ts.createLanguageService(host);
const abs = resolve(file);
const text = readFileSync(abs, "utf8");
const re = new RegExp(lineRe, "m");
const m = re.exec(text);
if (!m) throw new Error(`no line of ${file} matches ${lineRe}`);
const col = new RegExp(`\\b${name}\\b`).exec(m[0]);
if (!col) throw new Error(`${name} is not on the line ${m[0]}`);
const locs = ls.findRenameLocations(abs, m.index + col.index, false, false, {
  providePrefixAndSuffixTextForRename: true,
});
if (!locs?.length) throw new Error(`nothing to rename at ${file}: ${m[0]}`);
const byFile = new Map();
for (const l of locs) byFile.set(l.fileName, [...(byFile.get(l.fileName) ?? []), l]);
for (const [f, ls2] of byFile) {
  let t = readFileSync(f, "utf8");
  for (const l of ls2.sort((a, b) => b.textSpan.start - a.textSpan.start))
    t =
      t.slice(0, l.textSpan.start) +
      (l.prefixText ?? "") +
      next +
      (l.suffixText ?? "") +
      t.slice(l.textSpan.start + l.textSpan.length);
  writeFileSync(f, t);
}
console.log(`${name} → ${next}: ${locs.length} places in ${byFile.size} files`);
