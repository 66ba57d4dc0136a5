import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

/**
 * `**`, `**=` and Math.pow in a file, as file:line (found in the syntax tree, so comments and strings
 * that mention them do not count).
 */
function powersIn(root: string, file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const at = (node: ts.Node, what: string) => found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${what}`);
  const visit = (node: ts.Node): void => {
    if (ts.isBinaryExpression(node) && (node.operatorToken.kind === ts.SyntaxKind.AsteriskAsteriskToken || node.operatorToken.kind === ts.SyntaxKind.AsteriskAsteriskEqualsToken)) at(node, node.getText());
    if (ts.isPropertyAccessExpression(node) && node.name.text === 'pow' && node.expression.getText() === 'Math') at(node, 'Math.pow');
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the engines and the services that feed their results', () => {
  // V8 11.3 (Node 20: the CLI, the web host) and V8 13.6+ (Node 24/25, Electron 39: the app) give
  // other bits for most powers, so a run would not reproduce across hosts (core/README.md).
  it('use no ** and no Math.pow: products, powInt, root or pow of core/common/power instead', () => {
    const repo = join(__dirname, '../..');
    const found = ['core', 'main'].flatMap((dir) => {
      const root = join(repo, dir);
      const files = (readdirSync(root, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts'));
      expect(files.length).toBeGreaterThan(20);
      // Parsed only where the text may hold one (an operand right before **, not a comment's /**).
      return files.filter((f) => /[\w)\]]\s*\*\*|Math\.pow/.test(readFileSync(join(root, f), 'utf8'))).flatMap((f) => powersIn(repo, join(dir, f)));
    });
    expect(found).toEqual([]);
  });
});
