/**
 * Per-user spending limits and fair-use limits for Anthropic calls: atomic reservations before a call,
 * progressive extensions while it streams, settlement with the actual cost, usage records, and the
 * admin and user APIs that read and change them. All state lives in the database, so every replica
 * enforces the same limits.
 */
@NullMarked
package app.talkide.controlplane.budget;

import org.jspecify.annotations.NullMarked;
