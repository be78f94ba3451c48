import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

import { type ModuleReference, moduleReferences } from './module-references';

/**
 * The architecture rule of docs/CONVENTIONS.md: `core/` is pure domain. It reaches only other `core/` files
 * and a few `node:` built-ins that do no I/O; never adapters, plugins, the gateway, the composition root or
 * any npm package, whether by import, import type, re-export, require or dynamic import.
 */
const ROOT = resolve(__dirname, '../..');
const CORE = join(ROOT, 'core');
/** Built-ins core may use, and whether a value import is allowed (false: types only). */
const BUILTINS: Record<string, 'values' | 'types'> = {
  'node:crypto': 'values',
  'node:events': 'values',
  'node:stream': 'types',
};

const isTestFile = (name: string) => /\.(test|spec)\.[cm]?tsx?$/.test(name);
const isSource = (name: string) => /\.[cm]?tsx?$/.test(name);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sourceFiles(path);
    return isSource(e.name) && !isTestFile(e.name) ? [path] : [];
  });
}

/** Why a reference breaks the rule, or null when it is allowed. */
function violation(file: string, ref: ModuleReference): string | null {
  const s = ref.specifier;
  if (ref.kind === 'reference-directive') return `triple-slash reference "${s}"`;
  if (s === null) return `${ref.kind} with a computed module name`;
  if (s.startsWith('.')) {
    const target = resolve(dirname(file), s);
    const inside = relative(CORE, target);
    return inside.startsWith('..') || inside.startsWith(sep) || inside === ''
      ? `"${s}" resolves outside core/ (${relative(ROOT, target)})`
      : null;
  }
  const builtin = BUILTINS[s];
  if (!builtin) return s.startsWith('node:') ? `built-in "${s}" is not allowed in core` : `package or absolute path "${s}"`;
  if (builtin === 'types' && !ref.typeOnly) return `"${s}" may only be imported for types (import type)`;
  return null;
}

function violationsOf(file: string, source: string): string[] {
  return moduleReferences(file, source)
    .map((ref) => [ref, violation(file, ref)] as const)
    .filter(([, why]) => why !== null)
    .map(([ref, why]) => `${relative(ROOT, file)}:${ref.line} ${ref.kind}: ${why}`);
}

describe('architecture: core/ depends on nothing outside core/', () => {
  const files = sourceFiles(CORE);

  it('finds the core sources', () => {
    expect(files.length).toBeGreaterThan(20);
    expect(files.some((f) => f.endsWith(join('identity', 'authenticate.ts')))).toBe(true);
  });

  it('no core file imports adapters, plugins, gateway, app, npm packages or I/O built-ins', () => {
    const found = files.flatMap((f) => violationsOf(f, readFileSync(f, 'utf8')));
    expect(found).toEqual([]);
  });

  describe('the checker itself', () => {
    const file = join(CORE, 'identity', 'example.ts');
    const check = (source: string) => violationsOf(file, source);

    it.each([
      ["import express from 'express';"],
      ["import type { Knex } from 'knex';"],
      ["import { type Knex } from 'knex';"],
      ["import 'reflect-metadata';"],
      ["import * as amqp from 'amqplib';"],
      ["export { S3Client } from '@aws-sdk/client-s3';"],
      ["export type { Redis } from 'ioredis';"],
      ["export * from '../../adapters/postgres/knex-store';"],
      ["import { startPlatform } from '../../app/platform';"],
      ["import { createGateway } from '../../gateway';"],
      ["import type { Plugin } from '../../plugins/sources/web';"],
      ["import { x } from '../../core-extras/x';"],
      ["const pg = require('pg');"],
      ["const { Client } = require('../../adapters/x');"],
      ["const path = require.resolve('openai');"],
      ["const r = require; r('pg');"],
      ['async function f() { return import("openai"); }'],
      ['async function f(name: string) { return import(name); }'],
      ['function f(name: string) { return require(name); }'],
      ["import x = require('amqplib');"],
      ["type R = import('express').Request;"],
      ["let q: typeof import('../../adapters/x');"],
      ["import { Readable } from 'node:stream';"],
      ["import fs from 'node:fs';"],
      ["import { readFile } from 'node:fs/promises';"],
      ["import http from 'node:http';"],
      ["import crypto from 'crypto';"],
      ["import { createHash } from '/abs/path/core/shared/hash';"],
      ['/// <reference path="../../adapters/x.ts" />'],
      ['const t = `${1}`; import(`openai`);'],
    ])('catches %s', (source) => {
      expect(check(source)).toHaveLength(1);
    });

    it.each([
      ["import { createHash } from 'node:crypto';"],
      ["import type { Readable } from 'node:stream';"],
      ["import { type Readable } from 'node:stream';"],
      ["import { EventEmitter } from 'node:events';"],
      ["import { DomainError } from '../shared/errors';"],
      ["import type { Store } from '../ports/store';"],
      ["export * from './session';"],
      ["async function f() { return import('../shared/errors'); }"],
      ["const required = 'require'; const text = \"import x from 'express'\";"],
    ])('allows %s', (source) => {
      expect(check(source)).toEqual([]);
    });
  });
});
