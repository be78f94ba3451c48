/** Tests are plain TypeScript compiled by swc (type checking is `npm run typecheck`). */
module.exports = {
  testEnvironment: 'node',
  roots: [
    '<rootDir>/core',
    '<rootDir>/adapters',
    '<rootDir>/plugins',
    '<rootDir>/gateway',
    '<rootDir>/contracts',
    '<rootDir>/app',
    '<rootDir>/test',
  ],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } }],
  },
  // ESM-only packages are compiled to CommonJS for jest like the project's own code.
  transformIgnorePatterns: [
    '/node_modules/(?!(@electric-sql|jose|openid-client|oauth4webapi|@seriousme|file-type|strtok3|token-types|@tokenizer|@borewit|uint8array-extras)/)',
  ],
  // file-type's "node" export has only import/module-sync conditions, which jest's CommonJS resolver does not match.
  moduleNameMapper: { '^file-type$': '<rootDir>/node_modules/file-type/index.js' },
  // Hooks boot an embedded Postgres (PGlite); on a loaded 2-core machine that can take tens of seconds.
  testTimeout: 180000,
  maxWorkers: 2,
};
