import assert from 'node:assert/strict';
import { test } from 'node:test';
import { slugify } from '../src/slug.js';

test('words are joined by single hyphens', () => {
  assert.equal(slugify('Hello, World!'), 'hello-world');
});

test('accents are dropped', () => {
  assert.equal(slugify('Crème brûlée'), 'creme-brulee');
});

test('nothing but punctuation gives an empty slug', () => {
  assert.equal(slugify('?!'), '');
});
