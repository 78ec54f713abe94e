/**
 * Identity tokens: the long-lived, opaque credential a worker presents to the mint endpoint. Stored
 * only as SHA-256 hashes; issued, verified (cached), revoked and rotated with a grace period here.
 * Exposed to other features (provisioning puts them into worker Secrets and rotates them).
 */
@NamedInterface("identity")
@NullMarked
package app.talkide.controlplane.token.identity;

import org.jspecify.annotations.NullMarked;
import org.springframework.modulith.NamedInterface;
