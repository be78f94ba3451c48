// Lint rules the project holds itself to: typed rules catch floating promises and `any`; imports stay sorted.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import simpleImportSort from 'eslint-plugin-simple-import-sort';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'data/**',
      'dist/**',
      '.scratch/**',
      'artifacts/**',
      'bench/results/**',
      '**/*.js',
      '**/*.mjs',
      '**/*.cjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { 'simple-import-sort': simpleImportSort },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', destructuredArrayIgnorePattern: '^_' },
      ],
      'simple-import-sort/imports': 'error',
      'simple-import-sort/exports': 'error',
      // Stripping control characters from untrusted text is deliberate.
      'no-control-regex': 'off',
    },
  },
  {
    // Tests read loosely typed JSON responses; production code may not.
    files: ['test/**/*.ts', '**/*.test.ts', 'bench/**/*.ts', '**/testing/**/*.ts', '**/test-fixtures/**/*.ts', '**/fixtures/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-this-alias': 'off' },
  },
);
