/** Master keys, and the per-tenant-environment signing keys derived from them with HKDF-SHA256. */
@NullMarked
package app.talkide.controlplane.token.keys;

import org.jspecify.annotations.NullMarked;
