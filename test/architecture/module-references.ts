import ts from 'typescript';

export interface ModuleReference {
  specifier: string | null;
  /** Erased at compile time (`import type`, `export type`, `import('x').T` in a type position). */
  typeOnly: boolean;
  kind: 'import' | 'export' | 'import-equals' | 'require' | 'dynamic-import' | 'import-type' | 'reference-directive';
  line: number;
}

const literal = (node: ts.Node | undefined): string | null =>
  node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) ? node.text : null;

function isTypeOnlyImport(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (!clause) return false; // a side-effect import runs the module
  if (clause.isTypeOnly) return true;
  if (clause.name) return false;
  const bindings = clause.namedBindings;
  if (!bindings || ts.isNamespaceImport(bindings)) return false;
  return bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly);
}

/**
 * Every way a TypeScript file can reach another module: static imports and re-exports (type-only or not),
 * `import x = require()`, `require()` calls, dynamic `import()`, `import('x').T` types and triple-slash
 * references. A require or import whose argument is not a plain string is reported with specifier null.
 */
export function moduleReferences(fileName: string, source: string): ModuleReference[] {
  const sf = ts.createSourceFile(
    fileName,
    source,
    ts.ScriptTarget.Latest,
    true,
    fileName.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const out: ModuleReference[] = [];
  const line = (node: ts.Node) => sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;

  for (const ref of [...sf.referencedFiles, ...sf.typeReferenceDirectives, ...sf.libReferenceDirectives]) {
    out.push({
      specifier: ref.fileName,
      typeOnly: true,
      kind: 'reference-directive',
      line: sf.getLineAndCharacterOfPosition(ref.pos).line + 1,
    });
  }

  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      out.push({ specifier: literal(node.moduleSpecifier), typeOnly: isTypeOnlyImport(node), kind: 'import', line: line(node) });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      const typeOnly =
        node.isTypeOnly ||
        (!!node.exportClause &&
          ts.isNamedExports(node.exportClause) &&
          node.exportClause.elements.length > 0 &&
          node.exportClause.elements.every((e) => e.isTypeOnly));
      out.push({ specifier: literal(node.moduleSpecifier), typeOnly, kind: 'export', line: line(node) });
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      out.push({ specifier: literal(node.moduleReference.expression), typeOnly: node.isTypeOnly, kind: 'import-equals', line: line(node) });
    } else if (ts.isImportTypeNode(node)) {
      const arg = node.argument;
      out.push({
        specifier: ts.isLiteralTypeNode(arg) ? literal(arg.literal) : null,
        typeOnly: true,
        kind: 'import-type',
        line: line(node),
      });
    } else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword) {
        out.push({ specifier: literal(node.arguments[0]), typeOnly: false, kind: 'dynamic-import', line: line(node) });
      } else if (
        (ts.isIdentifier(callee) && callee.text === 'require') ||
        (ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) && callee.expression.text === 'require') // require.resolve
      ) {
        out.push({ specifier: literal(node.arguments[0]), typeOnly: false, kind: 'require', line: line(node) });
      }
    } else if (
      ts.isIdentifier(node) &&
      node.text === 'require' &&
      !ts.isCallExpression(node.parent) &&
      !ts.isPropertyAccessExpression(node.parent)
    ) {
      // `const r = require; r('pg')` and friends.
      out.push({ specifier: null, typeOnly: false, kind: 'require', line: line(node) });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}
