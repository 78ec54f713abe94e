/** Strict parsing of JWS compact serialization, shared by the WorkerToken and command-token verifiers. */
@NullMarked
package app.talkide.controlplane.token.jws;

import org.jspecify.annotations.NullMarked;
