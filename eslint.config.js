// Flat config: TypeScript everywhere, Vue in the renderer. Type-aware rules are left to `npm run typecheck`.
import tseslint from 'typescript-eslint';
import pluginVue from 'eslint-plugin-vue';

export default tseslint.config(
  { ignores: ['node_modules/', 'out/', 'dist/', 'bench/results/', 'test/e2e/artifacts/', '.electron-native/'] },
  ...tseslint.configs.recommended,
  ...pluginVue.configs['flat/recommended'],
  {
    files: ['**/*.vue'],
    languageOptions: { parserOptions: { parser: tseslint.parser } },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'vue/multi-word-component-names': 'off',
      'vue/max-attributes-per-line': 'off',
      'vue/singleline-html-element-content-newline': 'off',
      'vue/html-self-closing': 'off',
    },
  },
  {
    // core/ is pure TypeScript: no Node built-ins, no Electron, no DOM, nothing outside core/ (ARCHITECTURE.md).
    files: ['core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*', 'electron', 'fs', 'path', 'os', 'worker_threads'], message: 'core/ is pure TypeScript: no Node built-ins or Electron.' },
            { group: ['**/main/**', '**/renderer/**', '**/bench/**', '**/test/**'], message: 'core/ imports nothing outside core/.' },
          ],
        },
      ],
    },
  },
  {
    // The renderer reaches main/ only through the API contract and the wire codec; never Node or Electron.
    files: ['renderer/src/**/*.ts', 'renderer/src/**/*.vue'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['node:*', 'electron'], message: 'The renderer is sandboxed: no Node built-ins or Electron.' },
            { group: ['**/main/**', '!**/main/api', '!**/main/wire'], message: 'The renderer imports main/ only for the API contract (main/api) and the wire codec (main/wire).' },
          ],
        },
      ],
    },
  },
);
