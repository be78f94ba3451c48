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
  transformIgnorePatterns: ['/node_modules/(?!(@electric-sql|jose|openid-client|oauth4webapi|@seriousme)/)'],
  // Hooks boot an embedded Postgres (PGlite); on a loaded 2-core machine that can take tens of seconds.
  testTimeout: 180000,
  maxWorkers: 2,
};
