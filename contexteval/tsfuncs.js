// Prints, for each file of a manifest, its TypeScript functions as the
// TypeScript compiler parses them: top-level function declarations,
// top-level variables initialized with a function or arrow, and the
// methods, constructors, accessors and function-valued properties of
// top-level classes ("Class.member"). Functions nested in those belong to
// them. Lines are 1-based; a function's JSDoc is part of it.
//
// usage: node tsfuncs.js MANIFEST  (MANIFEST: JSON [{path, file}])
'use strict';
const fs = require('fs');
const ts = require('typescript');

const manifest = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const out = manifest.map(({ path, file }) => {
  const text = fs.readFileSync(file, 'utf8');
  const kind = path.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, kind);
  const line = (pos) => sf.getLineAndCharacterOfPosition(pos).line + 1;
  const funcs = [];
  const push = (name, node) => funcs.push({ name, from: line(node.getStart(sf, true)), to: line(node.end) });
  const isFn = (e) => e && (ts.isArrowFunction(e) || ts.isFunctionExpression(e));
  const memberName = (m) => {
    if (ts.isConstructorDeclaration(m)) return 'constructor';
    return m.name && (ts.isIdentifier(m.name) || ts.isPrivateIdentifier(m.name) || ts.isStringLiteral(m.name)) ? m.name.text : '';
  };
  const visit = (stmts) => {
    for (const s of stmts) {
      if (ts.isFunctionDeclaration(s) && s.name) {
        push(s.name.text, s);
      } else if (ts.isVariableStatement(s)) {
        for (const d of s.declarationList.declarations) {
          if (ts.isIdentifier(d.name) && isFn(d.initializer)) push(d.name.text, s.declarationList.declarations.length === 1 ? s : d);
        }
      } else if (ts.isClassDeclaration(s) && s.name) {
        for (const m of s.members) {
          const fn = ts.isMethodDeclaration(m) || ts.isConstructorDeclaration(m) || ts.isGetAccessor(m) || ts.isSetAccessor(m) ||
            (ts.isPropertyDeclaration(m) && isFn(m.initializer));
          const n = memberName(m);
          if (fn && n) push(s.name.text + '.' + n, m);
        }
      } else if (ts.isModuleDeclaration(s) && s.body && ts.isModuleBlock(s.body)) {
        visit(s.body.statements);
      }
    }
  };
  visit(sf.statements);
  return funcs;
});
process.stdout.write(JSON.stringify(out));
